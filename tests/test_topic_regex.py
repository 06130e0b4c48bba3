"""Topic regexes as Kafka's RE2J reads them (model/topic_regex.py), alone and through the model.

The expected verdicts and descriptions of ``RE2J_VERDICTS`` were produced by RE2J 1.8 itself
(``Pattern.compile(p)``, ``PatternSyntaxException.getDescription()``), built from its source at
tag ``re2j-1.8``; a random differential run of 60,000 patterns against it found no difference in
verdict, description or full-match result (docs/kafka-facts.md (h)).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from kgspec.model.errors import Errors
from kgspec.model.topic_regex import (
    CACHE_SIZE,
    InvalidTopicRegex,
    _compile,
    compile_topic_regex,
    is_valid_topic_regex,
)

from tests.consumer.helpers import Harness, code
from tests.helpers import check

RE2J_VERDICTS: list[tuple[str, str | None]] = [
    # Unicode classes: RE2J's categories and Unicode 6.0 scripts, nothing newer, no Java names.
    (r"\p{L}+", None),
    (r"\pL+", None),
    (r"\p{^Lu}", None),
    (r"\PN", None),
    (r"\p{Greek}", None),
    (r"[\p{Latin}\d]+", None),
    (r"\p{Kawi}", "invalid character class range"),
    (r"\p{IsLatin}", "invalid character class range"),
    (r"\p{Any}", None),
    (r"\p{Unknown}", None),
    # No back-references, no look-around; "(?<" is always a named group to RE2J.
    (r"(a)\1", "invalid escape sequence"),
    (r"\1", "invalid escape sequence"),
    (r"(?=a)", "invalid or unsupported Perl syntax"),
    (r"(?!a)", "invalid or unsupported Perl syntax"),
    (r"(?<=a)b", "invalid named capture"),
    (r"(?<!a)b", "invalid named capture"),
    (r"(?P=n)", "invalid or unsupported Perl syntax"),
    (r"(?P<n>a)(?P<n>b)", "duplicate capture group name"),
    (r"(?P<é>a)", "invalid named capture"),
    (r"(?<name>x)y", None),
    # Brackets and parentheses.
    (r"[", "missing closing ]"),
    (r"[]", "missing closing ]"),
    (r"[]a]", None),
    (r"(", "missing closing )"),
    (r")", "regexp/syntax: internal error"),
    (r"a)", "regexp/syntax: internal error"),
    # Repetition.
    (r"a**", "invalid nested repetition operator"),
    (r"a{2}{3}", "invalid nested repetition operator"),
    (r"a{*", "invalid nested repetition operator"),
    (r"*a", "missing argument to repetition operator"),
    (r"(?i)*", "missing argument to repetition operator"),
    (r"a{1001}", "invalid repeat count"),
    (r"a{2,1}", "invalid repeat count"),
    (r"a{1000000000}", "invalid repeat count"),
    (r"a{,3}", None),
    (r"a{01}", None),
    (r"(a{100}){100}", None),
    # Escapes.
    ("\\", "trailing backslash at end of expression"),
    (r"\C", "invalid escape sequence"),
    (r"\Z", "invalid escape sequence"),
    (r"\z", None),
    (r"\é", None),
    (r"[\é]", None),
    (r"\Qa.b\E+", None),
    (r"\x{110000}", "invalid escape sequence"),
    (r"\x{41}", None),
    (r"\8", "invalid escape sequence"),
    (r"\08", None),
    # Classes and flags.
    (r"[z-a]", "invalid character class range"),
    (r"[a-\d]", "invalid escape sequence"),
    (r"[[:foo:]]", "invalid character class range"),
    (r"[[:word:]]+", None),
    (r"(?i)FOO", None),
    (r"(?U)a+", None),
    (r"(?-)", "invalid or unsupported Perl syntax"),
    (r"(?)", None),
    (r"(?i", "invalid or unsupported Perl syntax"),
    (r"foo.*", None),
    (r"(a+)+$", None),
]


@pytest.mark.parametrize(("pattern", "description"), RE2J_VERDICTS)
def test_re2j_verdicts(pattern: str, description: str | None) -> None:
    if description is None:
        compile_topic_regex(pattern)
        assert is_valid_topic_regex(pattern)
    else:
        with pytest.raises(InvalidTopicRegex) as info:
            compile_topic_regex(pattern)
        assert info.value.description == description
        assert not is_valid_topic_regex(pattern)


@pytest.mark.parametrize(("pattern", "topic", "matches"), [
    ("foo", "foo", True),
    ("foo", "foo-bar", False),  # matcher(topic).matches(): the whole name
    ("foo", "my-foo", False),
    ("foo.*", "foo-bar", True),
    (r"\p{L}+", "orders", True),
    (r"\p{L}+", "orders2", False),
    (r"\p{L}+", "héllo", True),
    (r"\pN+", "123", True),
    (r"(?i)FOO", "foo", True),
    (r"\é", "é", True),
    (r"\Qa.b\E+", "a.bbb", True),
    (r"\Qa.b\E+", "axb", False),
    (r"a{,3}", "a{,3}", True),  # not a repeat: literal braces
    (r"\p{Unknown}", "a", False),
    (r"\P{Unknown}+", "abc", True),
    (r"[^\P{Unknown}a]", "b", False),
    ("^t[0-9]+$", "t42", True),
    ("a|b", "ab", False),
    ("(?P<x>t)(?<y>0)", "t0", True),
    (r"(a+)+$", "a" * 40, True),
    (r"(a+)+$", "a" * 39 + "b", False),
])
def test_full_match(pattern: str, topic: str, matches: bool) -> None:
    assert compile_topic_regex(pattern).fullmatch(topic) is matches


def test_catastrophic_backtracking_pattern_is_linear() -> None:
    # Python's re needs tens of seconds for this on 28 characters; RE2 answers at once.
    regex = compile_topic_regex(r"(a+)+$")
    names = ["a" * 39 + "b", "a" * 40, "b" * 40, "a" * 248 + "!"]
    start = time.process_time()
    assert regex.matching(names) == {"a" * 40}
    assert time.process_time() - start < 1.0  # microseconds with RE2; a backtracking engine never returns


def test_rewritten_for_the_engine() -> None:
    assert compile_topic_regex(r"\Qa.\E").translated == r"a\x{2E}"
    assert compile_topic_regex(r"(?P<n>a)").translated == "(a)"


def test_beyond_the_engine_matches_nothing() -> None:
    # RE2J compiles nested counts multiplying past 1000; C++ RE2 does not (docs: the one departure).
    regex = compile_topic_regex(r"(a{100}){100}")
    assert regex.engine is None
    assert regex.engine_error is not None
    assert not regex.fullmatch("a" * 10_000)


def test_cache_is_bounded_and_reused() -> None:
    assert compile_topic_regex("cached-.*") is compile_topic_regex("cached-.*")
    info = _compile.cache_info()
    assert info.maxsize == CACHE_SIZE
    # a rejection is cached too: the second verdict is a hit
    assert not is_valid_topic_regex("cached-[")
    hits = _compile.cache_info().hits
    assert not is_valid_topic_regex("cached-[")
    assert _compile.cache_info().hits == hits + 1
    # more distinct patterns than it holds: it stays at its bound
    for i in range(CACHE_SIZE + 10):
        is_valid_topic_regex(f"bound-{i}")
    assert _compile.cache_info().currsize == CACHE_SIZE


# --- through the model -----------------------------------------------------------------------


def resolved(h: Harness, regex: str) -> list[str]:
    return sorted(h.group.resolved_regexes[regex].topics)


def test_unicode_class_accepted_and_resolved() -> None:
    h = Harness({"orders": 1, "payments": 1, "orders2": 1, "foo-bar": 1})
    h.now = 10_000
    r = h.join("m", regex=r"\p{L}+")
    assert code(r) == 0
    h.sleep(0)
    assert resolved(h, r"\p{L}+") == ["orders", "payments"]


def test_back_reference_rejected() -> None:
    h = Harness({"aa": 1})
    r = h.join("m", regex=r"(a)\1")
    assert code(r) == Errors.INVALID_REGULAR_EXPRESSION == 128
    assert r.response is not None
    assert r.response["errorMessage"] == \
        r"SubscribedTopicRegex `(a)\1` is not a valid regular expression: invalid escape sequence."
    assert r.records == []
    assert h.coord.groups == {}


def test_error_message_is_kafkas() -> None:
    # GroupMetadataManagerTest asserts exactly this text for "[".
    h = Harness({"foo": 1})
    r = h.join("m", regex="[")
    assert r.response is not None
    assert r.response["errorMessage"] == "SubscribedTopicRegex `[` is not a valid regular expression: missing closing ]."


def test_catastrophic_pattern_resolves() -> None:
    h = Harness({"a" * 40: 1, "a" * 39 + "b": 1})
    h.now = 10_000
    assert code(h.join("m", regex=r"(a+)+$")) == 0
    h.sleep(0)
    assert resolved(h, r"(a+)+$") == ["a" * 40]


def test_full_match_through_the_model() -> None:
    h = Harness({"foo": 1, "foo-bar": 1, "xfoo": 1})
    h.now = 10_000
    h.join("m", regex="foo")
    h.sleep(0)
    assert resolved(h, "foo") == ["foo"]


def test_golden_regex_trace_conforms() -> None:
    status, report = check(Path(__file__).parent / "golden" / "consumer" / "topics_and_regex.jsonl")
    assert report["findings"] == []
    assert status == 0
