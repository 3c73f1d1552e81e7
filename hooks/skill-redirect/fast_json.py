"""JSON for the gate without importing the json package (which pulls in re, enum
and functools: about as much time again as the interpreter's own start).

Uses the C accelerator ``_json`` the json package itself uses; falls back to json.
"""
try:
    from _json import encode_basestring_ascii as _quote
    from _json import make_scanner as _make_scanner
except ImportError:  # an interpreter without the accelerator
    import json as _json_package

    def loads(text):
        return _json_package.loads(text)

    def dumps(obj):
        return _json_package.dumps(obj, separators=(",", ":"))

else:

    class _Context:
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = float
        memo = {}

    _scan = _make_scanner(_Context())
    _WHITESPACE = " \t\n\r"

    def loads(text):
        """Parse one JSON document (str, or UTF-8 bytes); ValueError if it is not one."""
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = _scan(text, start)
        except StopIteration:
            raise ValueError("not JSON") from None
        if text[end:].strip(_WHITESPACE):
            raise ValueError("extra data after JSON")
        return value

    def dumps(obj):
        """Compact JSON for nested dicts of strings (all the gate ever writes)."""
        if isinstance(obj, str):
            return _quote(obj)
        if isinstance(obj, dict):
            return "{" + ",".join(_quote(key) + ":" + dumps(value) for key, value in obj.items()) + "}"
        raise TypeError("fast_json.dumps writes dicts of strings only")
