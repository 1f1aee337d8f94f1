import assert from "node:assert/strict";
import { allowAll, currentSubject, DeniedError } from "../../authz.ts";
import { CapabilityError, checkRegistration } from "./capability.ts";
import { buildCatalog } from "./catalog.ts";
import { classifyAuthorizerError, classifyHandlerError, createDispatch, isPanic } from "./dispatch.ts";
import { CodeModeError, isCodeModeError } from "../errors.ts";
import { defaultLimits } from "./limits.ts";
import { t } from "./types.ts";

Deno.test("isPanic: exactly the built-in programming error classes", () => {
  for (
    const e of [
      new TypeError(),
      new ReferenceError(),
      new RangeError(),
      new SyntaxError(),
      new EvalError(),
      new URIError(),
    ]
  ) {
    assert.ok(isPanic(e), e.name);
  }
  class NotFound extends TypeError {}
  for (const e of [new Error(), new NotFound(), new DOMException("x"), "str", null, { name: "TypeError" }]) {
    assert.ok(!isPanic(e), String(e));
  }
});

Deno.test("classifiers keep the cause for the host and a generic message", () => {
  const cause = new Error("secret");
  const a = classifyAuthorizerError("x.y", cause);
  assert.equal(a.code, "policy_failure");
  assert.equal(a.cause, cause);
  assert.equal(a.message, "x.y: authorization policy failed");
  assert.equal(classifyAuthorizerError("x.y", new DeniedError()).code, "permission_denied");
  const deep = new Error("a", { cause: new Error("b", { cause: new DeniedError() }) });
  assert.equal(classifyAuthorizerError("x.y", deep).code, "permission_denied");
  const h = classifyHandlerError(
    "x.y",
    new CodeModeError("invalid_arguments", "bad", { detail: "bad\u0000" }),
  );
  assert.equal(h.code, "invalid_arguments");
  assert.equal(h.detail, undefined, "an unprintable detail is dropped");
});

Deno.test("authorizer and handler run with the execution subject installed", async () => {
  const seen: (string | undefined)[] = [];
  const check = checkRegistration({
    name: "who.am",
    summary: "Who am I",
    output: t.struct({ id: t.str() }),
    handler: () => {
      seen.push(currentSubject()?.id);
      return { id: currentSubject()?.id ?? "" };
    },
  }, 0);
  const catalog = buildCatalog([check], undefined).catalog!;
  const dispatch = createDispatch({
    catalog,
    authorizer: {
      authorize() {
        seen.push(currentSubject()?.id);
      },
    },
    limits: defaultLimits(),
    subject: { id: "s-1" },
  });
  assert.deepEqual(await dispatch(0, {}, new AbortController().signal), { id: "s-1" });
  assert.deepEqual(seen, ["s-1", "s-1"]);
  assert.equal(currentSubject(), undefined);
});

Deno.test("a dispatch rejects with the signal's reason when it aborts during the handler", async () => {
  const check = checkRegistration({
    name: "slow.op",
    summary: "Slow",
    output: t.struct({}),
    handler: () => new Promise(() => {}),
  }, 0);
  const catalog = buildCatalog([check], undefined).catalog!;
  const dispatch = createDispatch({
    catalog,
    authorizer: allowAll(),
    limits: defaultLimits(),
    subject: { id: "s" },
  });
  const controller = new AbortController();
  const pending = dispatch(0, {}, controller.signal);
  const reason = new Error("deadline");
  controller.abort(reason);
  await assert.rejects(pending, (e) => e === reason);
  await assert.rejects(dispatch(0, {}, controller.signal), (e) => e === reason, "aborted before start");
  await assert.rejects(
    dispatch(0.5, {}, new AbortController().signal),
    (e) => isCodeModeError(e, "internal"),
  );
});

Deno.test("approved handler details are escaped for the model", () => {
  const approved = classifyHandlerError(
    "x.y",
    new CapabilityError("no such record\u2028see the docs\ufe0f", { safeForModel: true }),
  );
  assert.equal(approved.detail, "x.y: no such record\\u2028see the docs\\ufe0f");
  const own = classifyHandlerError(
    "x.y",
    new CodeModeError("capability_failure", "x", { detail: "a\u2029b" }),
  );
  assert.equal(own.detail, "x.y: a\\u2029b");
  // A plain failure still names the capability, never the cause.
  assert.equal(classifyHandlerError("x.y", new Error("db password hunter2")).detail, "x.y");
});

Deno.test("a dispatch checks the result against maxValueBytes while converting it", async () => {
  let built = 0;
  const check = checkRegistration({
    name: "big.op",
    summary: "Big",
    output: t.struct({ items: t.list(t.str()) }),
    handler: () => {
      built++;
      return { items: ["abc", "defg"] };
    },
  }, 0);
  const catalog = buildCatalog([check], undefined).catalog!;
  const signal = new AbortController().signal;
  // The result encodes to 1 + 1 + (1 + 5) + 1 + 1 + (1 + 1 + 3) + (1 + 1 + 4) = 21 bytes.
  const at = (maxValueBytes: number) =>
    createDispatch({
      catalog,
      authorizer: allowAll(),
      limits: { ...defaultLimits(), maxValueBytes },
      subject: { id: "s" },
    });
  assert.deepEqual(await at(21)(0, {}, signal), { items: ["abc", "defg"] });
  await assert.rejects(at(20)(0, {}, signal), (e) => isCodeModeError(e, "resource_limit"));
  assert.equal(built, 2);
});
