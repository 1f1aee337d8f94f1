# CPython prelude for json_aggregate.star: Starlark's json module in terms of Python's (compact, sorted keys).
import json as _json


class json:
    encode = staticmethod(lambda v: _json.dumps(v, separators=(",", ":"), sort_keys=True))
    decode = staticmethod(_json.loads)
