"""Spark fixtures: one session-scoped ``local[1]`` SparkSession for every Spark test.

Tests here are marked ``spark``; the heavier ones also ``slow``, which the default run
deselects: it executes the pure tests and the one end-to-end smoke test only. All of
them: ``pytest tests/spark -m spark``.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.spark.data import Dataset, make_dataset


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    if shutil.which("java") is None:
        pytest.skip("no java on PATH")
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[1]").appName("kgspec-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "1")
               .config("spark.driver.host", "127.0.0.1")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    return make_dataset(tmp_path_factory.mktemp("conform"))
