#!/bin/sh
# Checks every chunk of the conformance suite against the reference implementation (go.starlark.net at the
# version of the `starlark` binary), through the small Go host in refcheck/ that predeclares the same
# `assert` module, `freeze`, `json` and `math` as conformance_test.ts. Not part of `deno task test`:
# run it by hand after editing a .star file.  Usage: tests/starlark/check_reference.sh [-v] [FILE.star...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
verbose=""
if [ "${1:-}" = "-v" ]; then verbose="-v"; shift; fi
if [ "$#" -eq 0 ]; then set -- "$here"/*.star; fi
bin="${TMPDIR:-/tmp}/codemode-refcheck"
# The module cache already holds go.starlark.net (the `starlark` binary was built from it), so no network.
(cd "$here/refcheck" && GOFLAGS=-mod=mod GOPROXY="${GOPROXY:-off}" go build -o "$bin" .)
exec "$bin" $verbose "$@"
