"""Every example script runs with small arguments, prints its results and saves its figures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SHARED

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name, tmp_path, *extra):
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="ignore")
    r = subprocess.run([sys.executable, str(EXAMPLES / name), "--quick", "--out", str(tmp_path), *extra],
                       capture_output=True, text=True, env=env, timeout=170, cwd=str(EXAMPLES))
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_play_tennis_reproduces_the_lecture(tmp_path):
    out = run_example("play_tennis.py", tmp_path)
    assert "P(Yes) * prod_j P(x_j | Yes) = 0.0053" in out
    assert "P(No) * prod_j P(x_j | No) = 0.0206" in out
    assert "= 1/18" in out and "= 1/6" in out and "1/6 needs m = 5" in out
    assert "No: mean 23.88, sigma 6.34" in out and "Yes: mean 21.64, sigma 2.22" in out
    assert "No: mean 23.88, sigma 7.09" in out and "Yes: mean 21.64, sigma 2.35" in out
    assert (tmp_path / "play_tennis_conditionals.png").exists()


def test_gaussian_vs_logistic(tmp_path):
    out = run_example("gaussian_vs_logistic.py", tmp_path)
    assert "test accuracy" in out and "linear classifier" in out
    assert (tmp_path / "gaussian_vs_logistic.png").exists()


def test_mixed_table(tmp_path):
    out = run_example("mixed_table.py", tmp_path)
    assert "loaded model predicts identically: True" in out
    assert (tmp_path / "mixed_table_conditionals.png").exists()


def test_synthetic_data(tmp_path):
    out = run_example("synthetic_data.py", tmp_path)
    if "has no generative sample" not in out:
        assert "train on synthetic, test on real" in out


def test_text_20news(tmp_path):
    if not (SHARED / "20news-bydate.jsonl.gz").exists():
        pytest.skip(f"20news-bydate.jsonl.gz not in {SHARED}")
    out = run_example("text_20news.py", tmp_path, "--data", str(SHARED))
    assert "bayesnb MultinomialNB alpha=0.01" in out and "sklearn MultinomialNB" in out
    assert (tmp_path / "text_20news.png").exists()
