# CPython prelude for the big-integer program of the same name: Python 3.11+ refuses decimal conversions of
# ints over 4,300 digits by default (a guard Starlark does not have); this lifts it.
import sys

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)
