"""The pytest fixture a client test suite uses (kgspec.server.pytest_plugin), run as a user's
suite would run it (pytester: a conftest.py enabling the plugin, a test using the marker)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("kio")
pytest.importorskip("confluent_kafka")

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = 'pytest_plugins = ["kgspec.server.pytest_plugin"]\n'

PASSING = '''
import pytest
from tests.server.clients import FAST_CONFIGS, RdConsumer, produce, wait_for


@pytest.mark.kgspec_serve(topics={"t": 2}, configs=FAST_CONFIGS, clients=True, profile="kafka-4.1")
def test_consumer(kgspec_broker):
    assert kgspec_broker.bootstrap == f"127.0.0.1:{kgspec_broker.port}"
    produce(kgspec_broker.bootstrap, "t", 4, 2)
    c = RdConsumer(kgspec_broker.bootstrap, "c1")
    wait_for(lambda: len(c.values) == 4)
    c.close()
    assert '"profile":"kafka-4.1"' in kgspec_broker.trace_path.read_text().splitlines()[0]
'''

FAILING = '''
import socket
import pytest
from kgspec.conformance.peers.wire import decode_response
from kgspec.model.hashing import deterministic_topic_id
from tests.server.test_cli import call


@pytest.mark.kgspec_serve(topics={"t": 1, "u": 1}, clients=True)
def test_rogue_client(kgspec_broker):
    with socket.create_connection((kgspec_broker.host, kgspec_broker.port)) as sock:
        epoch = call(sock, 68, 1, {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "rebalanceTimeoutMs": 1000,
                                   "subscribedTopicNames": ["t"], "topicPartitions": []}, 1)["memberEpoch"]
        call(sock, 68, 1, {"groupId": "g", "memberId": "m1", "memberEpoch": epoch,
                           "topicPartitions": [{"topicId": deterministic_topic_id("u"), "partitions": [0]}]}, 2)
'''


@pytest.mark.clients
def test_a_client_suite_with_the_fixture_passes(pytester: pytest.Pytester) -> None:
    pytester.syspathinsert(ROOT)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_client=PASSING)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1)


def test_a_live_finding_fails_the_test_that_caused_it(pytester: pytest.Pytester) -> None:
    pytester.syspathinsert(ROOT)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_client=FAILING)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1, errors=1)  # the teardown fails it
    result.stdout.fnmatch_lines(["*kgspec serve found 1 departure(s) in *kgspec-serve.jsonl:*",
                                 "*group g: client (topicPartitions): client m1 reports owning*"])
