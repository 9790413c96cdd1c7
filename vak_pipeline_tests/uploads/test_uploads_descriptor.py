"""The upload descriptor: upload.yaml defaults, recordings.csv per-file overrides, and located errors."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from vak_pipeline.uploads.descriptor import load_descriptor

GOOD_YAML = """\
locale: en-IN
source: real
consent: recorded_verbal
consent_ref: CR-2024-001
license: internal
domain: telecom
channel_map: {"0": "user", "1": "agent"}
speakers: {agent: priya}
"""


def make_upload(tmp_path: Path, yaml_text: str = GOOD_YAML, csv_text: str | None = None,
                files: tuple[str, ...] = ("a.wav", "b.wav")) -> Path:
    up = tmp_path / "up1"
    up.mkdir()
    (up / "upload.yaml").write_text(yaml_text, encoding="utf-8")
    if csv_text is not None:
        (up / "recordings.csv").write_text(csv_text, encoding="utf-8")
    for f in files:
        (up / f).parent.mkdir(parents=True, exist_ok=True)
        (up / f).write_bytes(b"RIFF")
    return up


def test_good_descriptor_gives_defaults_and_per_file_overrides(tmp_path):
    up = make_upload(tmp_path, csv_text=(
        "file,conv_id,user_speaker,condition,channel_map,system_prompt\n"
        'a.wav,call-a,cust-17,phone,"{""0"": ""agent"", ""1"": ""user""}","line one\nline two"\n'
        "b.wav,,,,,\n"
    ))
    desc, issues = load_descriptor(up)
    assert issues == []
    assert desc is not None and desc.upload == "up1"
    a = desc.settings_for("a.wav")
    assert a.locale == "en-IN" and a.consent == "recorded_verbal" and a.condition == "phone"
    assert a.speakers == {"agent": "priya", "user": "cust-17"}  # column merged into the defaults
    assert a.channel_map == {"0": "agent", "1": "user"}
    assert a.system_prompt == "line one\nline two"  # a quoted multi-line cell stays one value
    assert desc.conv_id_for("a.wav") == "call-a"
    assert desc.settings_for("b.wav") == desc.defaults
    assert desc.settings_for("not-listed.wav") == desc.defaults
    assert desc.conv_id_for("b.wav") is None


def test_unknown_locale_names_file_and_field_and_yields_no_descriptor(tmp_path):
    up = make_upload(tmp_path, yaml_text=GOOD_YAML.replace("en-IN", "xx-XX"))
    desc, issues = load_descriptor(up)
    assert desc is None
    [issue] = issues
    assert issue.file == "up1/upload.yaml" and issue.field == "locale"
    assert "xx-XX" in issue.message and "en-IN" in issue.message  # says what is registered
    assert issue.fix


def test_missing_consent_is_located(tmp_path):
    up = make_upload(tmp_path, yaml_text="locale: en-US\n")
    desc, issues = load_descriptor(up)
    assert desc is None and [i.field for i in issues] == ["consent"]


def test_row_naming_a_missing_file_is_reported_and_other_rows_still_apply(tmp_path):
    up = make_upload(tmp_path, csv_text="file,condition\nmissing.wav,phone\nb.wav,noisy\n")
    desc, issues = load_descriptor(up)
    [issue] = issues
    assert (issue.file, issue.line, issue.field, issue.code) == (
        "up1/recordings.csv", 2, "file", "descriptor_csv_file_missing")
    assert "missing.wav" in issue.message
    assert desc is not None and desc.settings_for("b.wav").condition == "noisy"


def test_row_cannot_name_a_file_outside_the_upload(tmp_path):
    (tmp_path / "secret.wav").write_bytes(b"x")
    up = make_upload(tmp_path, csv_text="file,condition\n../secret.wav,phone\n")
    _, issues = load_descriptor(up)
    assert [i.code for i in issues] == ["descriptor_csv_file_missing"]


def test_bad_json_column_is_located_with_an_example_fix(tmp_path):
    up = make_upload(tmp_path, csv_text="file,channel_map,condition\na.wav,{0: user},phone\nb.wav,,noisy\n")
    desc, issues = load_descriptor(up)
    [issue] = issues
    assert (issue.line, issue.field, issue.code) == (2, "channel_map", "descriptor_csv_json_invalid")
    assert '{"0": "user", "1": "agent"}' in issue.fix
    assert desc.settings_for("a.wav") == desc.defaults  # the bad row is not half-applied
    assert desc.rejected_rows == {"a.wav": 2}  # ... and stages hold a.wav back rather than use the defaults
    assert desc.settings_for("b.wav").condition == "noisy"


def test_invalid_value_in_a_row_names_line_and_field(tmp_path):
    up = make_upload(tmp_path, csv_text="file,condition\na.wav,underwater\n")
    _, issues = load_descriptor(up)
    assert [(i.line, i.field) for i in issues] == [(2, "condition")]


def test_duplicate_row_keeps_the_first_and_reports_the_second(tmp_path):
    up = make_upload(tmp_path, csv_text="file,condition\na.wav,phone\nb.wav,clean\na.wav,noisy\n")
    desc, issues = load_descriptor(up)
    [issue] = issues
    assert (issue.line, issue.field, issue.code) == (4, "file", "descriptor_csv_duplicate_file")
    assert "line 2" in issue.message
    assert desc.settings_for("a.wav").condition == "phone"
    assert desc.rejected_rows == {"a.wav": 4}


def test_duplicate_and_unsafe_conv_ids_are_reported(tmp_path):
    up = make_upload(tmp_path, csv_text="file,conv_id\na.wav,c1\nb.wav,c1\n", files=("a.wav", "b.wav", "c.wav"))
    desc, issues = load_descriptor(up)
    assert [(i.line, i.code) for i in issues] == [(3, "descriptor_csv_duplicate_conv_id")]
    (up / "recordings.csv").write_text("file,conv_id\nc.wav,../../etc/x\n", encoding="utf-8")
    _, issues = load_descriptor(up)
    assert [(i.field, i.code) for i in issues] == [("conv_id", "descriptor_csv_conv_id_unsafe")]


def test_non_ascii_file_names_match_across_unicode_normalizations(tmp_path):
    nfd = unicodedata.normalize("NFD", "Müller.wav")
    up = make_upload(tmp_path, csv_text="file,condition\nMüller.wav,phone\n电话.wav,clean\n", files=(nfd, "电话.wav"))
    desc, issues = load_descriptor(up)
    assert issues == []
    assert desc.settings_for(nfd).condition == "phone"  # keyed by the name on disk
    assert desc.settings_for("电话.wav").condition == "clean"


def test_missing_and_broken_upload_yaml(tmp_path):
    up = tmp_path / "up2"
    up.mkdir()
    desc, issues = load_descriptor(up)
    assert desc is None and issues[0].code == "descriptor_missing"
    (up / "upload.yaml").write_text("locale: [en-US\n", encoding="utf-8")
    desc, issues = load_descriptor(up)
    assert desc is None and issues[0].code == "descriptor_yaml_invalid" and issues[0].line


def test_csv_without_file_column(tmp_path):
    up = make_upload(tmp_path, csv_text="name,condition\na.wav,phone\n")
    desc, issues = load_descriptor(up)
    assert desc is not None and [i.code for i in issues] == ["descriptor_csv_no_file_column"]


def test_the_documented_example_loads(tmp_path):
    import re

    doc = (Path(__file__).parents[2] / "docs" / "upload.md").read_text(encoding="utf-8")
    yaml_text = re.search(r"```yaml\n(.*?)```", doc, re.S).group(1)
    csv_text = re.search(r"```csv\n(.*?)```", doc, re.S).group(1)
    up = make_upload(tmp_path, yaml_text=yaml_text, csv_text=csv_text,
                     files=("call_0001.wav", "call_0002.flac", "conference_6ch.wav"))
    desc, issues = load_descriptor(up)
    assert issues == []
    assert desc.conv_id_for("call_0001.wav") == "acme-0001"
    assert desc.settings_for("call_0002.flac").channel_map == {"0": "agent", "1": "user"}
    assert desc.settings_for("conference_6ch.wav").keep_channels == [2, 5]
    assert desc.settings_for("conference_6ch.wav").speakers == {"agent": "priya", "user": "cust-19"}
