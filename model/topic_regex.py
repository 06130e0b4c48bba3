"""Topic regexes with Kafka's semantics: RE2J's dialect, verdicts and error text; linear time.

**What Kafka does.** Kafka's group coordinator compiles ``subscribedTopicRegex`` with Google RE2J
(``com.google.re2j.Pattern``, version 1.8 in ``gradle/dependencies.gradle`` of 4.1 to 4.4 and
trunk), with no flags:

* validation, ``Utils.throwIfRegularExpressionIsInvalid``: ``Pattern.compile(regex)``; a
  ``PatternSyntaxException`` becomes INVALID_REGULAR_EXPRESSION (128) with the message
  ``SubscribedTopicRegex `<regex>` is not a valid regular expression: <ex.getDescription()>.``
  (Kafka's ``GroupMetadataManagerTest`` asserts ``... expression: missing closing ].`` for ``[``);
* resolution, ``GroupMetadataManager.refreshRegularExpressions`` (4.1, 4.2, trunk) and
  ``modern/consumer/TopicRegexResolver.resolveRegularExpressions`` (4.3, 4.4):
  ``Pattern.compile(regex)``, then ``regex.matcher(topicName).matches()`` for every topic of the
  metadata image, i.e. a **full match**. A regex that does not compile there resolves to no
  topic (it is put in the result map before the ``try``).

``getDescription()`` is the bare error text of RE2J's ``Parser`` (``ERR_*`` constants), without
the ``error parsing regexp:`` prefix and without the offending input.

**How the model does it.** C++ RE2 (the ``google-re2`` package) does the matching: it is the same
automata design as RE2J (no backtracking, time linear in the topic name), but a different parser
with a different dialect and different error texts. So :func:`compile_topic_regex` first runs a
port of RE2J 1.8's ``Parser`` (``Parser.parseInternal`` and its helpers) that decides accept or
reject exactly as RE2J does and raises :class:`InvalidTopicRegex` with RE2J's description; while
it scans, it writes the pattern out again in a canonical form C++ RE2 reads the same way
(every literal as ``\\x{...}``, named groups as plain groups, ``\\Q...\\E`` expanded). Only that
rewritten pattern reaches C++ RE2. No Python ``re`` ever sees a pattern from a trace.

**Where RE2J 1.8 and C++ RE2 differ** (read in RE2J's ``Parser.java`` at tag ``re2j-1.8`` and
probed against ``google-re2`` 1.1.20251105):

* Escapes. RE2J accepts ``\\`` before any non-ASCII-alphanumeric character (``Utils.isalnum``
  is ASCII only), so ``\\é`` is a literal ``é``; C++ RE2 rejects it. RE2J rejects ``\\C``; C++
  RE2 reads it as "any byte". Both reject back-references (``\\1``: "invalid escape sequence"),
  ``\\Z``, ``\\G``, ``\\e``, ``\\cX``, ``\\uXXXX``; both accept ``\\A \\b \\B \\z \\d \\s \\w``,
  octal ``\\0..``, ``\\x41``, ``\\x{41}``, ``\\a \\f \\n \\r \\t \\v``.
* ``\\Q...\\E`` (outside classes) is literal text in both, up to the first ``\\E``.
* Unicode classes. RE2J knows ``Any``, the general categories of its ``UnicodeTables``
  (``L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C
  Cc Cf Co Cs``) and the 96 scripts of Unicode 6.0 (``Latin``, ``Greek``, ``Han``, ...,
  ``Unknown``); ``\\pL``, ``\\p{L}``, ``\\p{^L}``, ``\\PL`` all work. Any other name is
  "invalid character class range" (``\\p{Kawi}``, newer than Unicode 6.0, passes C++ RE2 but not
  RE2J; no Java-style ``\\p{IsLatin}``, ``\\p{InGreek}``, ``\\p{javaLowerCase}`` in 1.8). C++ RE2
  lacks ``Unknown``: the rewrite uses U+10FFFF for it, exact on the ASCII that topic names are
  made of (Kafka's ``Topic.validate`` allows ``[a-zA-Z0-9._-]``).
* Named groups. RE2J accepts ``(?P<name>`` and ``(?<name>`` with names of ``[A-Za-z0-9_]+`` and
  rejects a duplicate name ("duplicate capture group name"); C++ RE2 accepts Unicode names and
  duplicates. RE2J treats any ``(?<`` as a named group, so look-behind ``(?<=`` fails there with
  "invalid named capture" (C++ RE2: "invalid perl operator").
* Repetition. Both cap counts at 1000 and forbid stacked operators (``a**``). RE2J also rejects
  a count of more than 8 digits (``a{1000000000}``: "invalid repeat count") where C++ RE2 reads
  the braces as literals, and, after a ``{`` that did not parse as a repeat, an immediately
  following ``*``, ``+``, ``?`` or ``{n}`` ("invalid nested repetition operator": RE2J records
  the ``{`` position as a repeat before it knows; Go's regexp does not).
* An unmatched ``)``: RE2J 1.8 reports "regexp/syntax: internal error" (``parseRightParen``'s
  stack underflow), C++ RE2 "unexpected )".
* Error texts: RE2J's are "missing closing ]", "missing closing )", "invalid nested repetition
  operator", "missing argument to repetition operator", "invalid repeat count", "invalid or
  unsupported Perl syntax", "trailing backslash at end of expression", ... (C++ RE2: "missing ]",
  "bad repetition operator", ...). The port raises RE2J's.
* Limits. C++ RE2 rejects nested counted repetitions whose counts multiply past 1000
  (``(a{100}){100}``) and programs over its memory budget; RE2J 1.8 compiles both. Such a regex is
  valid here as in Kafka, but the model cannot match it: it resolves to no topic
  (:attr:`CompiledRegex.engine_error` says why). This is the one known departure.

Matching semantics otherwise agree on topic names: full match, ``.`` not matching ``\\n``, ``^``/``$``
at the text's ends unless ``(?m)``, ``(?i)`` with simple case folding, ASCII ``\\d \\s \\w \\b``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

import re2

__all__ = ["CompiledRegex", "InvalidTopicRegex", "compile_topic_regex", "is_valid_topic_regex"]

# RE2J 1.8 Parser.java, the ERR_* constants (getDescription() returns one of these).
ERR_INTERNAL_ERROR: Final = "regexp/syntax: internal error"
ERR_INVALID_CHAR_RANGE: Final = "invalid character class range"
ERR_INVALID_ESCAPE: Final = "invalid escape sequence"
ERR_INVALID_NAMED_CAPTURE: Final = "invalid named capture"
ERR_INVALID_PERL_OP: Final = "invalid or unsupported Perl syntax"
ERR_INVALID_REPEAT_OP: Final = "invalid nested repetition operator"
ERR_INVALID_REPEAT_SIZE: Final = "invalid repeat count"
ERR_MISSING_BRACKET: Final = "missing closing ]"
ERR_MISSING_PAREN: Final = "missing closing )"
ERR_MISSING_REPEAT_ARGUMENT: Final = "missing argument to repetition operator"
ERR_TRAILING_BACKSLASH: Final = "trailing backslash at end of expression"
ERR_DUPLICATE_NAMED_CAPTURE: Final = "duplicate capture group name"

# RE2J 1.8 UnicodeTables.CATEGORIES and SCRIPTS (Unicode 6.0), plus Parser.unicodeTable's "Any".
_CATEGORY_NAMES = """
    Lu Ll Lt Lm Lo Mn Me Mc Nd Nl No Zs Zl Zp Cc Cf Co Cs Pd Ps Pe Pc Po Sm Sc Sk So Pi Pf
    P S C Z L M N
"""
_SCRIPT_NAMES = """
    Common Inherited Bamum Arabic Lisu Armenian Bengali Old_South_Arabian Bopomofo Cherokee
    Coptic Cyrillic Deseret Devanagari Ethiopic Georgian Gothic Greek Gujarati Gurmukhi Han
    Hangul Hebrew Hiragana Kannada Katakana Khmer Lao Latin Malayalam Mongolian Myanmar Ogham
    Old_Italic Oriya Runic Sinhala Syriac Tamil Telugu Thaana Thai Tibetan Canadian_Aboriginal
    Yi Tagalog Hanunoo Buhid Tagbanwa Braille Cypriot Limbu Linear_B Osmanya Shavian Tai_Le
    Ugaritic Buginese Glagolitic Kharoshthi Syloti_Nagri New_Tai_Lue Tifinagh Old_Persian
    Balinese Batak Brahmi Cham Egyptian_Hieroglyphs Javanese Kayah_Li Lepcha Mandaic Nko
    Old_Turkic Phags_Pa Phoenician Vai Cuneiform Unknown Carian Tai_Tham Lycian Lydian Ol_Chiki
    Rejang Saurashtra Sundanese Meetei_Mayek Imperial_Aramaic Avestan Kaithi
    Inscriptional_Pahlavi Inscriptional_Parthian Samaritan Tai_Viet
"""
UNICODE_CLASS_NAMES: Final = frozenset(_CATEGORY_NAMES.split() + _SCRIPT_NAMES.split() + ["Any"])

# RE2J 1.8 CharGroup.PERL_GROUPS and POSIX_GROUPS.
_PERL_CLASSES: Final = frozenset("dDsSwW")
_POSIX_CLASSES: Final = frozenset(
    f"[:{neg}{name}:]" for neg in ("", "^")
    for name in ("alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print",
                 "punct", "space", "upper", "word", "xdigit"))

_MAX_RUNE: Final = 0x10FFFF
# C++ RE2 has no "Unknown" script: on ASCII it is empty, and U+10FFFF (unassigned) is in it.
_UNKNOWN_IN: Final = "\\x{10FFFF}"
_UNKNOWN_OUT_CLASS: Final = "\\x{0}-\\x{10FFFE}"

# Options for C++ RE2: Perl syntax (its default, as RE2J's RE2.PERL), no logging of errors to
# stderr, and more room than the default 8 MiB for the compiled program.
_OPTIONS: Final = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.max_mem = 64 << 20

CACHE_SIZE: Final = 1024


class InvalidTopicRegex(ValueError):
    """RE2J's ``PatternSyntaxException``: ``description`` is ``getDescription()`` (what Kafka puts
    in the error message), ``input`` the partial input RE2J reports with it (``getPattern()``)."""

    def __init__(self, description: str, input_: str = "") -> None:
        super().__init__(description)
        self.description = description
        self.input = input_


@dataclass(frozen=True, slots=True)
class CompiledRegex:
    """A topic regex that RE2J accepts; :meth:`fullmatch` is ``matcher(topic).matches()``."""

    pattern: str
    translated: str  # the pattern in the canonical form handed to C++ RE2
    engine: re2._Regexp[str] | None
    engine_error: str | None = None  # why C++ RE2 could not compile it (matches nothing then)

    def fullmatch(self, topic: str) -> bool:
        if self.engine is None:
            return False
        try:
            return self.engine.fullmatch(topic) is not None
        except UnicodeEncodeError:  # a lone surrogate: no Kafka topic name has one
            return False

    def matching(self, topics: Iterable[str]) -> frozenset[str]:
        """The topics the regex matches in full."""
        return frozenset(t for t in topics if self.fullmatch(t))


def compile_topic_regex(pattern: str) -> CompiledRegex:
    """``Pattern.compile(pattern)`` as RE2J 1.8 decides it; raises :class:`InvalidTopicRegex`."""
    result = _compile(pattern)
    if isinstance(result, CompiledRegex):
        return result
    raise InvalidTopicRegex(*result)


def is_valid_topic_regex(pattern: str) -> bool:
    return isinstance(_compile(pattern), CompiledRegex)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _compile(pattern: str) -> CompiledRegex | tuple[str, str]:
    try:
        translated = _Parser(pattern).parse()
    except InvalidTopicRegex as exc:
        return exc.description, exc.input
    try:
        engine = re2.compile(translated, _OPTIONS)
    except re2.error as exc:
        msg = exc.args[0] if exc.args else "compile failed"
        text = msg.decode("utf-8", "replace") if isinstance(msg, bytes) else str(msg)
        return CompiledRegex(pattern, translated, None, text)
    return CompiledRegex(pattern, translated, engine)


def _isalnum(c: str) -> bool:
    # RE2J Utils.isalnum: ASCII only.
    return ("0" <= c <= "9") or ("A" <= c <= "Z") or ("a" <= c <= "z")


def _unhex(c: str) -> int:
    if "0" <= c <= "9":
        return ord(c) - 48
    if "a" <= c <= "f":
        return ord(c) - 87
    if "A" <= c <= "F":
        return ord(c) - 55
    return -1


def _rune(r: int) -> str:
    """A literal rune, written so that C++ RE2 reads it as that rune in and out of classes."""
    c = chr(r)
    if _isalnum(c) or c == "_":
        return c
    return f"\\x{{{r:X}}}"


class _Parser:
    """RE2J 1.8 ``Parser.parseInternal`` with flags ``RE2.PERL``, reduced to what decides the
    verdict: the parse stack is only "is its top a real expression" and the group depth."""

    __slots__ = ("depth", "n", "names", "out", "pos", "s", "top_real")

    def __init__(self, pattern: str) -> None:
        self.s = pattern
        self.n = len(pattern)
        self.pos = 0
        self.out: list[str] = []
        self.depth = 0
        self.top_real = False  # False: the stack is empty or ends in "(" or "|" (isPseudo)
        self.names: set[str] = set()

    def parse(self) -> str:
        s, n = self.s, self.n
        last_repeat = -1
        while self.pos < n:
            repeat = -1
            c = s[self.pos]
            if c == "(":
                if s.startswith("(?", self.pos):
                    self._perl_flags()
                else:
                    self._emit("(", real=False)
                    self.depth += 1
                    self.pos += 1
            elif c == "|":
                self._emit("|", real=False)
                self.pos += 1
            elif c == ")":
                if self.depth == 0:  # parseRightParen: "stack underflow"
                    raise InvalidTopicRegex(ERR_INTERNAL_ERROR, "stack underflow")
                self.depth -= 1
                self._emit(")")
                self.pos += 1
            elif c in "^$.":
                self._emit(c)
                self.pos += 1
            elif c == "[":
                self._parse_class()
            elif c in "*+?":
                repeat = self.pos
                self.pos += 1
                self._repeat(repeat, last_repeat)
            elif c == "{":
                repeat = self.pos
                if self._parse_repeat():
                    self._repeat(repeat, last_repeat)
                else:  # not a repeat: "{" is a literal (but repeat stays set, as in RE2J)
                    self.pos = repeat + 1
                    self._emit(_rune(ord("{")))
            elif c == "\\":
                self._backslash()
            else:
                self._emit(_rune(ord(c)))
                self.pos += 1
            last_repeat = repeat
        if self.depth:
            raise InvalidTopicRegex(ERR_MISSING_PAREN, s)
        return "".join(self.out)

    def _emit(self, text: str, real: bool = True) -> None:
        self.out.append(text)
        self.top_real = real

    def _fail(self, error: str, start: int) -> InvalidTopicRegex:
        return InvalidTopicRegex(error, self.s[start:self.pos])

    # --- repetition -------------------------------------------------------------------

    def _repeat(self, before: int, last_repeat: int) -> None:
        """``repeat``: pos is just after the operator; an optional ``?`` makes it non-greedy."""
        if self.pos < self.n and self.s[self.pos] == "?":
            self.pos += 1
        if last_repeat != -1:
            raise self._fail(ERR_INVALID_REPEAT_OP, last_repeat)
        if not self.top_real:
            raise self._fail(ERR_MISSING_REPEAT_ARGUMENT, before)
        self._emit(self.s[before:self.pos])

    def _parse_int(self) -> int:
        """``parseInt``: -1 bad format (none, or a leading zero), -2 more than 8 digits."""
        start = self.pos
        while self.pos < self.n and "0" <= self.s[self.pos] <= "9":
            self.pos += 1
        digits = self.s[start:self.pos]
        if not digits or (len(digits) > 1 and digits[0] == "0"):
            return -1
        if len(digits) > 8:
            return -2
        return int(digits)

    def _parse_repeat(self) -> bool:
        """``parseRepeat`` at ``{``: True past a valid ``{n}``, ``{n,}``, ``{n,m}``; False if it is
        not one (then ``{`` is a literal); raises "invalid repeat count" if its numbers are bad."""
        s, n = self.s, self.n
        start = self.pos
        self.pos += 1
        lo = self._parse_int()
        if lo == -1 or self.pos >= n:
            return False
        if s[self.pos] != ",":
            hi = lo
        else:
            self.pos += 1
            if self.pos >= n:
                return False
            if s[self.pos] == "}":
                hi = -1
            else:
                hi = self._parse_int()
                if hi == -1:
                    return False
        if self.pos >= n or s[self.pos] != "}":
            return False
        self.pos += 1
        if lo < 0 or lo > 1000 or hi == -2 or hi > 1000 or (hi >= 0 and lo > hi):
            raise self._fail(ERR_INVALID_REPEAT_SIZE, start)
        return True

    # --- groups and flags -------------------------------------------------------------

    def _perl_flags(self) -> None:
        """``parsePerlFlags`` at ``(?``: a named group, or flags with or without a group."""
        s = self.s
        start = self.pos
        rest = s[start:]
        if rest.startswith(("(?P<", "(?<")):
            begin = 4 if rest[2] == "P" else 3
            end = rest.find(">", begin)
            if end < 0:
                raise InvalidTopicRegex(ERR_INVALID_NAMED_CAPTURE, rest)
            name = rest[begin:end]
            self.pos = start + end + 1
            if not name or not all(c == "_" or _isalnum(c) for c in name):
                raise InvalidTopicRegex(ERR_INVALID_NAMED_CAPTURE, rest[:end + 1])
            if name in self.names:
                raise InvalidTopicRegex(ERR_DUPLICATE_NAMED_CAPTURE, name)
            self.names.add(name)
            self._emit("(", real=False)  # the name does not matter to matching
            self.depth += 1
            return
        self.pos += 2
        negated = saw_flag = False
        while self.pos < self.n:
            c = s[self.pos]
            self.pos += 1
            if c in "imsU":
                saw_flag = True
            elif c == "-":
                if negated:
                    break
                negated, saw_flag = True, False
            elif c in ":)":
                if negated and not saw_flag:
                    break
                if c == ":":
                    self._emit(s[start:self.pos], real=False)
                    self.depth += 1
                else:  # flags only: nothing is pushed, the top stays as it was
                    self.out.append(s[start:self.pos])
                return
            else:
                break
        raise self._fail(ERR_INVALID_PERL_OP, start)

    # --- escapes ----------------------------------------------------------------------

    def _backslash(self) -> None:
        """The ``\\\\`` case of ``parseInternal``."""
        s, n = self.s, self.n
        saved = self.pos
        self.pos += 1
        if self.pos < n:
            c = s[self.pos]
            self.pos += 1
            if c in "AbBz":
                self._emit("\\" + c)
                return
            if c == "C":  # any byte: not supported
                raise InvalidTopicRegex(ERR_INVALID_ESCAPE, "\\C")
            if c == "Q":  # \Q ... \E: literals up to the first \E (or the end)
                end = s.find("\\E", self.pos)
                lit = s[self.pos:] if end < 0 else s[self.pos:end]
                self.pos += len(lit) + 2
                for ch in lit:
                    self._emit(_rune(ord(ch)))
                return
        self.pos = saved
        if s.startswith(("\\p", "\\P"), self.pos):
            self._emit(self._unicode_class(in_class=False))
            return
        if self.pos + 1 < n and s[self.pos + 1] in _PERL_CLASSES:
            self._emit(s[self.pos:self.pos + 2])
            self.pos += 2
            return
        self._emit(_rune(self._escape()))

    def _escape(self) -> int:
        """``parseEscape`` at ``\\\\``: the rune of a single-character escape."""
        s, n = self.s, self.n
        start = self.pos
        self.pos += 1
        if self.pos >= n:
            raise InvalidTopicRegex(ERR_TRAILING_BACKSLASH)
        c = s[self.pos]
        self.pos += 1
        if not _isalnum(c):
            return ord(c)  # escaped punctuation (and any non-ASCII rune) is itself
        if c in "1234567" and (self.pos >= n or not "0" <= s[self.pos] <= "7"):
            raise self._fail(ERR_INVALID_ESCAPE, start)  # a back-reference: not supported
        if c in "01234567":
            r = ord(c) - 48
            for _ in range(2):
                if self.pos >= n or not "0" <= s[self.pos] <= "7":
                    break
                r = r * 8 + ord(s[self.pos]) - 48
                self.pos += 1
            return r
        if c == "x" and self.pos < n:
            c = s[self.pos]
            self.pos += 1
            if c == "{":
                r = nhex = 0
                while True:
                    if self.pos >= n:
                        raise self._fail(ERR_INVALID_ESCAPE, start)
                    c = s[self.pos]
                    self.pos += 1
                    if c == "}":
                        break
                    v = _unhex(c)
                    if v < 0:
                        raise self._fail(ERR_INVALID_ESCAPE, start)
                    r = r * 16 + v
                    if r > _MAX_RUNE:
                        raise self._fail(ERR_INVALID_ESCAPE, start)
                    nhex += 1
                if nhex == 0:
                    raise self._fail(ERR_INVALID_ESCAPE, start)
                return r
            x = _unhex(c)
            if self.pos >= n:
                raise self._fail(ERR_INVALID_ESCAPE, start)
            y = _unhex(s[self.pos])
            self.pos += 1
            if x < 0 or y < 0:
                raise self._fail(ERR_INVALID_ESCAPE, start)
            return x * 16 + y
        simple = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}.get(c)
        if simple is None:
            raise self._fail(ERR_INVALID_ESCAPE, start)
        return simple

    def _unicode_class(self, in_class: bool) -> str:
        """``parseUnicodeClass`` at ``\\\\p`` or ``\\\\P``; returns the C++ RE2 text for it."""
        s, n = self.s, self.n
        start = self.pos
        self.pos += 1
        negated = s[self.pos] == "P"
        self.pos += 1
        if self.pos >= n:
            raise InvalidTopicRegex(ERR_INVALID_CHAR_RANGE, s[start:])
        c = s[self.pos]
        self.pos += 1
        if c != "{":
            name = c
        else:
            end = s.find("}", self.pos)
            if end < 0:
                raise InvalidTopicRegex(ERR_INVALID_CHAR_RANGE, s[start:])
            name = s[self.pos:end]
            self.pos = end + 1
        if name.startswith("^"):
            negated = not negated
            name = name[1:]
        if name not in UNICODE_CLASS_NAMES:
            raise self._fail(ERR_INVALID_CHAR_RANGE, start)
        if name == "Unknown":
            if not negated:
                return _UNKNOWN_IN
            return _UNKNOWN_OUT_CLASS if in_class else f"[{_UNKNOWN_OUT_CLASS}]"
        return f"\\{'P' if negated else 'p'}{{{name}}}"

    # --- character classes ------------------------------------------------------------

    def _class_char(self, class_start: int) -> int:
        if self.pos >= self.n:
            raise self._fail(ERR_MISSING_BRACKET, class_start)
        if self.s[self.pos] == "\\":
            return self._escape()
        self.pos += 1
        return ord(self.s[self.pos - 1])

    def _parse_class(self) -> None:
        """``parseClass`` at ``[``."""
        s, n = self.s, self.n
        start = self.pos
        self.pos += 1
        parts = ["["]
        if self.pos < n and s[self.pos] == "^":
            parts.append("^")
            self.pos += 1
        first = True  # "]" is a literal as the first character
        while self.pos >= n or s[self.pos] != "]" or first:
            first = False
            before = self.pos
            if s.startswith("[:", self.pos):
                end = s.find(":]", self.pos)
                if end >= 0:
                    name = s[self.pos:end + 2]
                    self.pos = end + 2
                    if name not in _POSIX_CLASSES:
                        raise InvalidTopicRegex(ERR_INVALID_CHAR_RANGE, name)
                    parts.append(name)
                    continue
            if s.startswith(("\\p", "\\P"), self.pos):
                parts.append(self._unicode_class(in_class=True))
                continue
            if s.startswith("\\", self.pos) and self.pos + 1 < n and s[self.pos + 1] in _PERL_CLASSES:
                parts.append(s[self.pos:self.pos + 2])
                self.pos += 2
                continue
            lo = hi = self._class_char(start)
            if self.pos < n and s[self.pos] == "-":
                self.pos += 1
                if self.pos < n and s[self.pos] == "]":
                    self.pos -= 1  # [a-] is a and -
                else:
                    hi = self._class_char(start)
                    if hi < lo:
                        raise self._fail(ERR_INVALID_CHAR_RANGE, before)
            parts.append(_rune(lo) if lo == hi else f"{_rune(lo)}-{_rune(hi)}")
        self.pos += 1
        parts.append("]")
        self._emit("".join(parts))
