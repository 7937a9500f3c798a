"""Loading the catalog: the packaged default or a user's file, read, parsed (duplicate keys and
YAML errors with their lines), its settings applied (``settings``), validated with every problem
named at once, and written back as YAML as it was written (``catalog export``).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import io
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML, YAMLError
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from placement.catalog.settings import Override, Setting, apply_settings
from placement.errors import CatalogError, Problem
from placement.models.catalog import Catalog
from placement.reading.bounded import Silent, TooLarge, read_bounded
from placement.reading.encoding import UndecodableText, decode
from placement.reading.nesting import MAX_NESTING, nesting_too_deep

DEFAULT_CATALOG_RESOURCE = "default_catalog.yaml"


DEFAULT_CATALOG_NAME = "<default catalog>"

PACKAGED_CATALOGS = {
    "default-2026": DEFAULT_CATALOG_RESOURCE,
    "aws-2026": "aws_2026_catalog.yaml",
}
"""The catalogs shipped with the tool, by the ``name`` each file gives itself: ``--catalog
aws-2026`` (or ``PLACEMENT_CATALOG=aws-2026``) picks one when no file of that name exists.
``default-2026`` is the reference document's; ``aws-2026`` holds public vendor figures."""


def default_catalog_text() -> str:
    """The packaged default catalog, as written (with its comments)."""
    return packaged_catalog_text(DEFAULT_CATALOG_RESOURCE)


def packaged_catalog_text(resource: str) -> str:
    """A packaged catalog file, as written (with its comments)."""
    return resources.files("placement.data").joinpath(resource).read_text("utf-8")


def _round_trip_yaml() -> YAML:
    """ruamel.yaml in round-trip mode: comments, quotes, flow style and key order survive, so
    ``catalog export`` gives back the file as written (with overrides applied), not a re-dump.
    """
    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 4096  # never fold a long source string
    rt.indent(mapping=2, sequence=4, offset=2)
    rt.representer.add_representer(
        type(None), lambda rep, _: rep.represent_scalar("tag:yaml.org,2002:null", "null")
    )
    return rt


@dataclass(frozen=True)
class CatalogOrigin:
    """Where a catalog came from, for messages and the plan's provenance."""

    name: str  # the file as given, or "<default catalog>"
    path: str | None  # None for the packaged default
    sha256: str  # of the bytes read (the packaged text for the default)
    overrides: tuple[str, ...]
    via: str  # default, --catalog, PLACEMENT_CATALOG or api


@dataclass(frozen=True)
class CatalogSource:
    """A validated catalog, its origin, and the text it was read from with the settings and
    overrides applied to it (``changes``, in order)."""

    catalog: Catalog
    origin: CatalogOrigin
    text: str = field(repr=False, compare=False)
    changes: tuple[str | Setting, ...] = field(default=(), repr=False, compare=False)

    @functools.cached_property
    def document(self) -> Any:
        """The YAML document as written (comments, quotes and key order kept) with the changes
        applied: parsed when asked for (``catalog export``), since reading a catalog to plan
        parses it the quick way (``read_catalog``)."""
        document, _, _ = apply_settings(_parse(self.text, self.origin.name), self.changes)
        return document


def _read_bytes(path: str | os.PathLike[str] | None) -> tuple[bytes, str]:
    """The catalog's bytes (hashed as read) and its name for messages."""
    if path is None:
        return default_catalog_text().encode("utf-8"), DEFAULT_CATALOG_NAME
    name = str(path)
    if name in PACKAGED_CATALOGS and not Path(path).exists():
        # A file of that name, where there is one, wins: a name never hides a user's file.
        return packaged_catalog_text(PACKAGED_CATALOGS[name]).encode("utf-8"), name
    try:
        return read_bounded(path), name
    except TooLarge as err:
        raise CatalogError(
            [
                Problem(
                    f"{name}: {err.reason}: not a catalog "
                    "(a catalog is YAML settings of some tens of kB)",
                    name,
                    expected="a catalog YAML file",
                )
            ]
        ) from None
    except Silent as err:
        raise CatalogError(
            [
                Problem(
                    f"{name}: {err.reason} (give the catalog's YAML file)",
                    name,
                    expected="a catalog YAML file",
                )
            ]
        ) from None
    except OSError as err:
        reason = err.strerror or str(err)
        packaged = ", ".join(sorted(PACKAGED_CATALOGS))
        hint = "" if Path(path).exists() else f"; nor is it a packaged catalog ({packaged})"
        expected = f"a readable catalog file or a packaged catalog ({packaged})"
        raise CatalogError(
            [
                Problem(
                    f"{name}: cannot read the catalog file ({reason}){hint}",
                    name,
                    expected=expected,
                )
            ]
        ) from None


def _decode(data: bytes, name: str) -> str:
    """The catalog's text, by the inventory's rule: UTF-8 (with or without a byte-order mark)
    or UTF-16 with one (Windows PowerShell 5 writes ``catalog export > my.yaml`` so); anything
    else is refused with the line of the first bad byte, never decoded by guess."""
    try:
        return decode(data)
    except UndecodableText as err:
        where = f"line {err.line}: " if err.line is not None else ""
        message = f"{name}: {where}expected {err.expected}"
        problem = Problem(message, name, line=err.line, value=err.found, expected=err.expected)
        raise CatalogError([problem]) from None


PARSED_CATALOGS_KEPT = 8
"""Parsed catalog documents kept per process (by their text): a batch's jobs read the same
catalog twice each (the job's, then its scenario's), and parsing is most of reading."""


@functools.lru_cache(maxsize=PARSED_CATALOGS_KEPT)
def _parse(text: str, name: str) -> Any:
    """The YAML document; a syntax error or a key written twice is reported with its line.

    Kept for the same text (an error is not kept): callers copy the document before changing
    it (``apply_settings``) and only read it otherwise. A document nested deeper than
    :data:`MAX_NESTING` levels is refused before it is parsed (the parser and every walk over
    the document recurse a level at a time).
    """
    deep = nesting_too_deep(text)
    if deep is not None:
        raise CatalogError([_too_deep(name, deep)])
    try:
        data = _round_trip_yaml().load(text)
    except DuplicateKeyError as err:
        raise CatalogError(
            _duplicate_keys(text, name) or [_yaml_problem(err, name, text)]
        ) from None
    except YAMLError as err:
        raise CatalogError([_yaml_problem(err, name, text)]) from None
    except RecursionError:  # deeper than the event count saw (a construct it could not read)
        raise CatalogError([_too_deep(name, None)]) from None
    if not isinstance(data, dict):
        expected = "a YAML mapping at the top level"
        message = f"{name}: expected {expected}; {_what_is(data)}"
        raise CatalogError([Problem(message, name, expected=expected)])
    sections = [k for k, f in Catalog.model_fields.items() if f.is_required()]
    if data and not set(map(str, data)) & set(sections):
        # Not a catalog at all (a .env or credentials file passed by mistake): its keys are
        # named, its values never echoed.
        found = ", ".join(list(map(str, data))[:10])
        expected = f"a catalog: YAML with its sections ({', '.join(sections[:6])}, ...)"
        message = f"{name}: not a catalog: none of its sections are here (found keys: {found})"
        raise CatalogError([Problem(message, name, expected=expected)])
    return data


def _too_deep(name: str, line: int | None) -> Problem:
    """A catalog nested deeper than any catalog is (an attack, or not a catalog)."""
    where = f"line {line}: " if line is not None else ""
    expected = f"a catalog: YAML nested at most {MAX_NESTING} levels deep"
    message = (
        f"{name}: {where}nested deeper than {MAX_NESTING} levels of mappings and lists: not a "
        "catalog (a catalog nests six)"
    )
    return Problem(message, name, line=line, expected=expected)


def _what_is(data: Any) -> str:
    """What a YAML document holds instead of a mapping, in words."""
    if data is None:
        return "the file is empty"
    if isinstance(data, list):
        return "found a list"
    # Its type only, never the value: a key or a .env file passed by mistake is not echoed.
    return f"found a single {type(data).__name__} value"


def _yaml_problem(err: YAMLError, name: str, text: str) -> Problem:
    """A YAML error as one line: where (line, column) and what the parser found."""
    mark = getattr(err, "problem_mark", None)
    position = getattr(err, "position", None)  # a ReaderError (a forbidden character)
    where = ""
    line = None
    if mark is not None:
        line = mark.line + 1
        where = f"line {line}, column {mark.column + 1}: "
    elif isinstance(position, int):
        line = text.count("\n", 0, position) + 1
        where = f"line {line}: "
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    context = getattr(err, "context", None)
    reason = f"{problem} ({context})" if context else problem
    return Problem(
        f"{name}: {where}not valid YAML: {reason}", name, line=line, expected="valid YAML"
    )


def _duplicate_keys(text: str, name: str) -> list[Problem]:
    """Every key written twice in one mapping, with its dotted path and both lines (YAML
    forbids it; the loader would otherwise keep one of the two values)."""
    return [
        Problem(
            f"{name}: line {line}: {path}: duplicate key {key!r} (first at line {first})",
            name,
            line=line,
            column=path,
            value=key,
            expected="each key once in a mapping",
        )
        for path, key, line, first in _repeated_keys(_round_trip_yaml().compose(text), "", set())
    ]


def _repeated_keys(node: Node, path: str, seen: set[int]) -> Iterator[tuple[str, str, int, int]]:
    """(dotted path, key, line, line of the first) of every repeated key below ``node``;
    ``seen`` guards against aliases, which may repeat a node or nest it in itself."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            yield from _repeated_keys(item, f"{path}.{index}", seen)
    if not isinstance(node, MappingNode):
        return
    first: dict[tuple[str, str], int] = {}
    for key_node, value_node in node.value:
        key = str(key_node.value)
        here = f"{path}.{key}" if path else key
        line = key_node.start_mark.line + 1
        identity = (key_node.tag, key)
        if identity in first and isinstance(key_node, ScalarNode):
            yield here, key, line, first[identity]
        first.setdefault(identity, line)
        yield from _repeated_keys(value_node, here, seen)


def read_catalog(
    path: str | os.PathLike[str] | None = None,
    overrides: Iterable[str] = (),
    via: str | None = None,
    settings: Iterable[Setting] = (),
) -> CatalogSource:
    """Load and validate a catalog (the packaged default when ``path`` is None), keeping the
    document and its origin.

    Every problem is reported at once, each naming where its value came from: the catalog file
    and the value's dotted path (with its line), or the ``--set`` option or scenario ``settings``
    entry that gave it.
    """
    overrides = tuple(overrides)
    # A scenario's settings first, so that --set, given on the command line, has the last word.
    changes: tuple[str | Setting, ...] = (*settings, *overrides)
    data, name = _read_bytes(path)
    text = _decode(data, name)
    catalog = _read_quickly(text, changes)
    if catalog is None:  # something to report: read again to say where, line by line
        base = _parse(text, name)
        # Always a copy, even with nothing to apply: the parsed one is kept for the next read.
        document, applied, problems = apply_settings(base, changes)
        catalog, invalid = _validate(document, base, applied, name)
        problems.extend(invalid)
        if catalog is None or problems:
            raise CatalogError(problems)
    origin = CatalogOrigin(
        name=name,
        path=None if path is None else str(path),
        sha256=hashlib.sha256(data).hexdigest(),
        overrides=overrides,
        via=via or ("default" if path is None else "api"),
    )
    return CatalogSource(catalog, origin, text, changes)


def _read_quickly(text: str, changes: tuple[str | Setting, ...]) -> Catalog | None:
    """The catalog, where the text parses, every change applies and the result validates;
    else None, and the caller reads it the round-trip way, which says what is wrong and where.

    ruamel.yaml's round-trip parser keeps every comment and line in pure Python: 0.135 s for
    the packaged catalog, most of a plan command's catalog time. Its safe loader (libyaml's
    parser through ruamel.yaml.clib, the same YAML 1.2 rules and duplicate-key check) takes
    0.02 s, and a valid catalog needs nothing more."""
    plain = _parse_plain(text)
    if plain is None:
        return None
    document, _, problems = apply_settings(plain, changes)
    if problems:
        return None
    try:
        return Catalog.model_validate(document)
    except ValidationError:
        return None


@functools.lru_cache(maxsize=PARSED_CATALOGS_KEPT)
def _parse_plain(text: str) -> dict[str, Any] | None:
    """The YAML document as plain values (kept for the same text, as ``_parse``); None where it
    is not a mapping or does not parse (the round-trip parse then reports why)."""
    if nesting_too_deep(text) is not None:
        return None
    try:
        data = YAML(typ="safe", pure=False).load(text)
    except Exception:  # any failure is reported by the round-trip parse
        return None
    return data if isinstance(data, dict) else None


def catalog_with_settings(catalog: Catalog, settings: Iterable[Setting]) -> Catalog:
    """A validated catalog with ``settings`` applied (for a catalog held in memory, without
    the document it came from)."""
    base = catalog.model_dump(mode="json")
    document, applied, problems = apply_settings(base, settings)
    validated, invalid = _validate(document, base, applied, "<catalog>")
    problems.extend(invalid)
    if validated is None or problems:
        raise CatalogError(problems)
    return validated


def load_catalog(
    path: str | os.PathLike[str] | None = None, overrides: Iterable[str] = ()
) -> Catalog:
    """Load and validate a catalog (the packaged default when ``path`` is None)."""
    return read_catalog(path, overrides).catalog


def _validate(
    document: dict[str, Any], base: dict[str, Any], overrides: list[Override], name: str
) -> tuple[Catalog | None, list[Problem]]:
    """The catalog, or the problems of the document, once each, blamed on the file or on the
    overrides that caused them."""
    try:
        return Catalog.model_validate(document), []
    except ValidationError as err:
        errors = err.errors()
    in_file = _file_errors(base) if overrides else set()
    problems: dict[str, Problem] = {}  # by message: a range set by one --set fails 3 times
    for error in errors:
        where = _dotted(error["loc"])
        message = _message(error)
        culprits = _culprits(where, message, overrides, in_file)
        if culprits:
            problem = _override_problem(culprits, where, message, error)
        else:
            problem = _describe(name, error, _line_of(document, error["loc"]))
        problems.setdefault(problem.message, problem)
    return None, list(problems.values())


def _dotted(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc)


def _message(error: Any) -> str:
    """A validation error's sentence, without pydantic's "Value error, " prefix."""
    return str(error["msg"]).removeprefix("Value error, ")


def _file_errors(base: dict[str, Any]) -> set[tuple[str, str]]:
    """The (path, message) of every error the file has before any override."""
    try:
        Catalog.model_validate(base)
    except ValidationError as err:
        return {(_dotted(e["loc"]), _message(e)) for e in err.errors()}
    return set()


def _within(path: str, prefix: str) -> bool:
    """Whether dotted ``path`` is ``prefix`` or lies below it (everything lies below "")."""
    return not prefix or path == prefix or path.startswith(prefix + ".")


def _culprits(
    where: str, message: str, overrides: list[Override], in_file: set[tuple[str, str]]
) -> list[Override]:
    """The overrides that gave the value failing at ``where``; none when the file did.

    An override that set the value (or a range holding it) is to blame. Otherwise an error the
    file has on its own is the file's; an error that only the overrides bring (a cross-check
    of several values, such as a point outside its range) is blamed on the overrides below its
    path, narrowed to those the message names when it names any.
    """
    setting = [o for o in overrides if _within(where, o.path)]
    below = [o for o in overrides if _within(o.path, where) and o not in setting]
    if not setting and (where, message) in in_file:
        return []
    related = setting + below
    named = [o for o in related if o.path in message]
    return named if len(related) > 1 and named else related


def _override_problem(culprits: list[Override], where: str, message: str, error: Any) -> Problem:
    """A problem blamed on ``--set``: the options as given, and the path that failed (the
    option's own path when the bad value lies in what it set: a range set by one number fails
    at low, high and point, and is one problem)."""
    single = culprits[0] if len(culprits) == 1 else None
    if single and _within(where, single.path):
        where = single.path
    options = ", ".join(o.named for o in culprits)
    path = f"{where}: " if where else ""
    origins = sorted({o.origin for o in culprits})
    return Problem(
        f"{options}: {path}{message}{_shown(error.get('input'))}",
        origins[0] if len(origins) == 1 else ", ".join(origins),
        column=single.path if single else where,
        value=single.raw if single else [o.raw for o in culprits],
        expected=message,
    )


def _shown(value: Any, line: int | None = None) -> str:
    """`` (got -1, line 57)``: the value found (unless a mapping or list) and its line."""
    parts = [] if isinstance(value, dict | list) else [f"got {value!r}"]
    if line is not None:
        parts.append(f"line {line}")
    return f" ({', '.join(parts)})" if parts else ""


def _line_of(document: Any, loc: tuple[Any, ...]) -> int | None:
    """The line (from 1) of the deepest key of ``loc`` the YAML document records."""
    line = None
    node = document
    for key in loc:
        positions = getattr(getattr(node, "lc", None), "data", None)
        if not isinstance(positions, dict) or key not in positions:
            break
        line = positions[key][0] + 1
        node = node[key]
    return line


def _describe(name: str, error: Any, line: int | None = None) -> Problem:
    """A validation error of the file: its name, the value's dotted path and line."""
    where = _dotted(error["loc"]) or "(top level)"
    message = _message(error)
    value = error.get("input")
    structured = isinstance(value, dict | list)
    return Problem(
        f"{name}: {where}: {message}{_shown(value, line)}",
        name,
        line=line,
        column=where,
        value=None if structured else value,
        expected=message,
    )


def catalog_to_yaml(source: CatalogSource) -> str:
    """The catalog's YAML as written, comments included, with the overrides applied; it loads
    back to an equal catalog."""
    out = io.StringIO()
    # Dumping moves comments in place, and the document shares them with the parsed one kept
    # for the next read (``copied_document``): a copy of its own is dumped.
    _round_trip_yaml().dump(copy.deepcopy(source.document), out)
    return out.getvalue()
