# CPython prelude for config_diff.star: Starlark's json module in terms of Python's (compact, sorted keys),
# and a `type` that answers with Starlark's type names.
import builtins as _builtins
import json as _json


class json:
    encode = staticmethod(lambda v: _json.dumps(v, separators=(",", ":"), sort_keys=True))
    decode = staticmethod(_json.loads)


_TYPE_NAMES = {dict: "dict", list: "list", str: "string", int: "int", bool: "bool", float: "float",
               tuple: "tuple", type(None): "NoneType"}


def type(v):
    return _TYPE_NAMES[_builtins.type(v)]
