"""One folder per campaign (analysis/campaigns/<pkg>/, ``<pkg>`` the INDEX id with ``-`` as
``_``): every results/INDEX.toml id has one and every folder is an id, each with one record
(``ENTRY`` of its ``campaign.py``); the registry finds each campaign that trains in its folder,
and every other id answers ``--campaign ID`` with one line saying its runs are data only."""

from __future__ import annotations

import pytest

from analysis import REPO_ROOT
from analysis.campaign import registry
from analysis.campaign.__main__ import main
from analysis.campaign.registry import package
from analysis.runs import index as ix

FOLDERS = REPO_ROOT / "analysis" / "campaigns"
IDS = [s.id for s in ix.studies()]
CAMPAIGNS, DATA_ONLY = registry.campaigns(), registry.data_only()


def test_every_index_id_has_a_folder_and_every_folder_is_an_index_id():
    folders = {p.parent.name for p in FOLDERS.glob("*/__init__.py")}
    assert folders == {package(i).rsplit(".", 1)[1] for i in IDS}
    assert list(registry.entries()) == IDS  # one record per folder, in INDEX order
    for study in ix.studies():
        readme = FOLDERS / package(study.id).rsplit(".", 1)[1] / "README.md"
        text = readme.read_text()
        assert len(text.splitlines()) <= 30, readme
        assert study.protocol in text and "results/INDEX.toml" in text, readme


def test_every_index_id_trains_or_is_data_only_in_index_order():
    assert list(CAMPAIGNS) == [i for i in IDS if i in CAMPAIGNS]
    assert sorted([*CAMPAIGNS, *DATA_ONLY]) == sorted(IDS)
    assert not set(CAMPAIGNS) & set(DATA_ONLY)
    assert {"pool", "regime-d10", "regime-wide1", "collapse", "collapse-pairs"} <= set(CAMPAIGNS)


@pytest.mark.parametrize("campaign_id", [i for i in IDS if i not in CAMPAIGNS])
def test_a_data_only_id_prints_one_line_and_exits_0(campaign_id, capsys):
    assert main(["--campaign", campaign_id, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [DATA_ONLY[campaign_id]]
    assert out.startswith(f"{campaign_id}: data only (")
