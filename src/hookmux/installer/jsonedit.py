"""Rewrite a JSON text to hold new data while keeping the user's formatting wherever the data
did not change.

Unchanged values keep their exact text; a changed object or array keeps its untouched
members/items and their whitespace, and only what is new is rendered (multi-line in the
file's indent, or compact inside a one-line container). The caller checks the result parses
back to the new data and falls back to a full re-serialisation otherwise.
"""
from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring

_WS = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:Infinity|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|true|false|null|NaN")


@dataclass
class Node:
    start: int
    end: int
    keys: list[str] = field(default_factory=list)  # objects: member keys in order
    key_starts: list[int] = field(default_factory=list)  # objects: where each member's key begins
    children: list["Node"] = field(default_factory=list)  # member values / array items
    leads: list[str] = field(default_factory=list)  # whitespace before each member/item
    gaps: list[str] = field(default_factory=list)  # whitespace between each value and its comma
    colon: str = ": "  # objects: the text between a key and its value
    trail: str = ""  # whitespace before the closing bracket


def _ws(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()


def parse(text: str, pos: int = 0) -> Node:
    """The span tree of the JSON value at ``pos`` (the text is known to be valid JSON)."""
    pos = _ws(text, pos)
    char = text[pos]
    if char == '"':
        _, end = scanstring(text, pos + 1)
        return Node(pos, end)
    if char in "{[":
        return _container(text, pos)
    match = _SCALAR.match(text, pos)
    if not match:
        raise ValueError(f"unexpected {char!r} at {pos}")
    return Node(pos, match.end())


def _container(text: str, pos: int) -> Node:
    is_object = text[pos] == "{"
    close = "}" if is_object else "]"
    node = Node(pos, pos)
    cursor = pos + 1
    while True:
        after = _ws(text, cursor)
        if text[after] == close:
            node.trail = text[cursor:after]
            node.end = after + 1
            return node
        node.leads.append(text[cursor:after])
        if is_object:
            key, key_end = scanstring(text, after + 1)
            value_at = _ws(text, _ws(text, key_end) + 1)
            if not node.keys:
                node.colon = text[key_end:value_at]
            node.keys.append(key)
            node.key_starts.append(after)
            child = parse(text, value_at)
        else:
            child = parse(text, after)
        node.children.append(child)
        cursor = _ws(text, child.end)
        if text[cursor] == ",":
            node.gaps.append(text[child.end:cursor])
            cursor += 1
        else:
            node.gaps.append("")
            node.trail = text[child.end:cursor]
            node.end = cursor + 1
            return node


def canon(value) -> str:
    """Equality that tells 1, 1.0 and true apart."""
    return json.dumps(value, sort_keys=False, allow_nan=True)


class Editor:
    def __init__(self, text: str, indent: int | str, ensure_ascii: bool):
        self.text = text
        self.unit = indent if isinstance(indent, str) else " " * indent
        self.ensure_ascii = ensure_ascii

    def rewrite(self, old, new) -> str:
        root = parse(self.text)
        multiline = "\n" in self.text.strip()
        body = self._render(root, old, new, self._indent_at(root.start), multiline)
        return self.text[: root.start] + body + self.text[root.end:]

    def _indent_at(self, pos: int) -> str:
        """The leading whitespace of the line ``pos`` is on."""
        line_start = self.text.rfind("\n", 0, pos) + 1
        return re.match(r"[ \t]*", self.text[line_start:]).group(0)

    def _fresh(self, value, indent: str, multiline: bool) -> str:
        if not multiline:
            return json.dumps(value, ensure_ascii=self.ensure_ascii, separators=(", ", ": "))
        return json.dumps(value, indent=self.unit, ensure_ascii=self.ensure_ascii).replace("\n", "\n" + indent)

    def _render(self, node: Node, old, new, indent: str, multiline: bool) -> str:
        if type(old) is type(new) and canon(old) == canon(new):
            return self.text[node.start:node.end]
        if isinstance(old, dict) and isinstance(new, dict):
            out = self._object(node, old, new, indent, multiline)
            if out is not None:
                return out
        if isinstance(old, list) and isinstance(new, list):
            return self._array(node, old, new, indent, multiline)
        return self._fresh(new, indent, multiline)

    def _shape(self, node: Node, indent: str, parent_multiline: bool) -> tuple[bool, str, str, str]:
        """(multi-line?, lead of the first member, lead of a new member, trail before the bracket)."""
        if not node.leads:
            if parent_multiline:
                return True, "\n" + indent + self.unit, "\n" + indent + self.unit, "\n" + indent
            return False, "", " ", ""
        multiline = any("\n" in lead for lead in node.leads) or "\n" in node.trail
        if multiline:
            return True, node.leads[0], node.leads[-1], node.trail
        return False, node.leads[0], node.leads[1] if len(node.leads) > 1 else " ", node.trail

    @staticmethod
    def _member_indent(lead: str, indent: str, multiline: bool) -> str:
        return lead.rsplit("\n", 1)[-1] if multiline and "\n" in lead else indent

    def _object(self, node: Node, old: dict, new: dict, indent: str, parent_multiline: bool) -> str | None:
        kept_old = [k for k in node.keys if k in new]
        kept_new = [k for k in new if k in old]
        if kept_old != kept_new or list(new)[: len(kept_new)] != kept_new:
            return None  # reordered, or a new key before an old one: render afresh
        multiline, first_lead, new_lead, trail = self._shape(node, indent, parent_multiline)
        parts = []
        for i, key in enumerate(node.keys):
            if key in new:
                child = node.children[i]
                key_text = self.text[node.key_starts[i]:child.start]
                value = self._render(child, old[key], new[key], self._indent_at(node.key_starts[i]), multiline)
                parts.append([node.leads[i], key_text + value, node.gaps[i]])
        member_indent = self._member_indent(new_lead, indent, multiline)
        for key in new:
            if key not in old:
                key_text = json.dumps(key, ensure_ascii=self.ensure_ascii) + node.colon
                parts.append([new_lead, key_text + self._fresh(new[key], member_indent, multiline), ""])
        return self._join("{", "}", parts, first_lead, trail)

    def _array(self, node: Node, old: list, new: list, indent: str, parent_multiline: bool) -> str:
        multiline, first_lead, new_lead, trail = self._shape(node, indent, parent_multiline)
        item_indent = self._member_indent(new_lead, indent, multiline)
        parts = []
        matcher = difflib.SequenceMatcher(a=[canon(v) for v in old], b=[canon(v) for v in new], autojunk=False)
        for op, a1, a2, b1, b2 in matcher.get_opcodes():
            if op in ("equal", "replace") and a2 - a1 == b2 - b1:
                for i, j in zip(range(a1, a2), range(b1, b2)):
                    child = node.children[i]
                    parts.append([node.leads[i],
                                  self._render(child, old[i], new[j], self._indent_at(child.start), multiline),
                                  node.gaps[i]])
            else:
                for j in range(b1, b2):
                    parts.append([new_lead, self._fresh(new[j], item_indent, multiline), ""])
        return self._join("[", "]", parts, first_lead, trail)

    @staticmethod
    def _join(open_: str, close: str, parts: list, first_lead: str, trail: str) -> str:
        if not parts:
            return open_ + close
        parts[0][0] = first_lead
        parts[-1][2] = ""
        return open_ + ",".join(lead + body + gap for lead, body, gap in parts) + trail + close


def rewrite(text: str, old, new, indent: int | str, ensure_ascii: bool) -> str:
    return Editor(text, indent, ensure_ascii).rewrite(old, new)
