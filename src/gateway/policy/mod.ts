/**
 * Deny-by-default access policy with exact names and `*` patterns (`memory__*`, `memory__read_*`), deny
 * beating allow, and the per-client catalog filter built on the same decisions.
 *
 * @module
 */
export { type ClientRules, parseRule, Policy, type Rule, ruleDownstream } from "./policy.ts";
