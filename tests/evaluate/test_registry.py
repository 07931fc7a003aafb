"""Things behind names (evaluate/registry.py): model kinds, judges, world-model kinds. Adding a model kind is one
new file: a test writes one to a temporary folder, imports it, and `voebench evaluate --model fakekind:...` runs
with it, its options in --help, and nothing else edited."""

import importlib
import importlib.util
import json
import sys
import textwrap

import pytest

from voebench.cli import main
from voebench.errors import UsageError
from voebench.evaluate.models import MODELS, WORLD_MODELS, make_adapter, parse_spec
from voebench.evaluate.predict import fake as predict_fake
from voebench.evaluate.registry import Registry

#: the one file a newcomer writes for a new kind: a class that parses its spec, declares its own option and builds
#: its adapter (here one that answers the spec's word, shouted with --fakekind-shout)
PLUGIN = """
from voebench.errors import UsageError
from voebench.evaluate.models import Adapter, ModelKind, register


class Say(Adapter):
    def __init__(self, word, batch_size):
        self.word, self.batch_size, self.name = word, batch_size, f"fakekind:{word}"

    def settings(self):
        return {"word": self.word}

    def generate(self, requests):
        return [f"{self.word}." for _ in requests]


@register("fakekind")
class FakeKind(ModelKind):
    spec = "<yes|no>"
    title = "fakekind adapter"

    def __init__(self, rest):
        if rest not in ("yes", "no"):
            raise UsageError(f"--model fakekind:{rest}: say yes or no")
        super().__init__(rest)

    @classmethod
    def add_arguments(cls, group):
        group.add_argument("--fakekind-shout", action="store_true", help="answer in capitals")

    def build(self, options):
        return Say(self.rest.upper() if options.fakekind_shout else self.rest.capitalize(), options.batch_size)
"""


@pytest.fixture(autouse=True)
def wide_help(monkeypatch):
    """argparse wraps --help to the terminal's width, also at hyphens; CI's width is not this machine's."""
    monkeypatch.setenv("COLUMNS", "1000")


@pytest.fixture
def fakekind(tmp_path):
    """PLUGIN written to a file of its own and imported; unregistered afterwards so other tests see the real list."""
    path = tmp_path / "fakekind_plugin.py"
    path.write_text(PLUGIN)
    spec = importlib.util.spec_from_file_location("fakekind_plugin", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    MODELS._entries.pop("fakekind", None)


def _answers(run) -> list[str]:
    return [r["responses"][-1] for r in map(json.loads, (run / "samples.jsonl").read_text().splitlines())]


def test_a_new_kind_is_one_file(tiny_set, tmp_path, fakekind, capsys):
    """The plugin's kind is listed in --help with its option, runs end to end, reads its option, and refuses a bad
    spec in one line (exit 2) through its own parser."""
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = capsys.readouterr().out
    assert "fakekind:<yes|no>" in out and "--fakekind-shout" in out and "fakekind adapter" in out
    assert "hf:<path-or-id>" in out and "openai:<model>@<base-url>" in out  # the others stay

    base = ["evaluate", tiny_set, "--repeats", "1", "--no-progress", "--limit", "1"]
    assert main([*base, "--model", "fakekind:yes", "--out", str(tmp_path / "plain")]) == 0
    assert set(_answers(tmp_path / "plain")) == {"Yes."}
    assert main([*base, "--model", "fakekind:no", "--fakekind-shout", "--out", str(tmp_path / "loud")]) == 0
    assert set(_answers(tmp_path / "loud")) == {"NO."}
    run = json.loads((tmp_path / "loud" / "run.json").read_text())
    assert run["model"] == "fakekind:NO"

    capsys.readouterr()
    assert main([*base, "--model", "fakekind:maybe", "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fakekind:maybe: say yes or no" in err
    assert not (tmp_path / "bad").exists()


def test_an_unknown_kind_names_the_registered_ones(fakekind, tiny_set, tmp_path, capsys):
    with pytest.raises(UsageError) as e:
        parse_spec("nope:x")
    msg = str(e.value)
    assert "\n" not in msg and "unknown model kind 'nope'" in msg
    for name in ("hf", "openai", "replay", "fake", "fakekind"):
        assert f"{name}:" in msg
    assert main(["evaluate", tiny_set, "--model", "nope:x", "--out", str(tmp_path / "r")]) == 2
    assert "unknown model kind 'nope'" in capsys.readouterr().err


def test_make_adapter_defaults_come_from_the_kinds_own_options():
    """A programmatic call leaves out what it does not set: each kind's declared defaults fill in."""
    assert MODELS.get("hf").defaults() == {
        "dtype": "auto",
        "device": "auto",
        "trust_remote_code": False,
        "packed_vision_attention": "auto",
    }
    assert MODELS.get("openai").defaults()["video_mode"] == "video_url"
    a = make_adapter("openai:m@http://127.0.0.1:9/v1", batch_size=9, ignored_option=1)
    try:  # the kind's defaults (concurrency 4, video_url) with the option given (9 requests per round)
        assert (a.batch_size, a.concurrency, a.video_mode) == (9, 4, "video_url")
    finally:
        a.close()
    with pytest.raises(UsageError, match="--video-mode bogus"):
        make_adapter("openai:m@http://127.0.0.1:9/v1", video_mode="bogus")


def test_registry_lookup_and_registration():
    reg: Registry[type] = Registry("widget", flag="--widget")

    @reg.register("a")
    class A:
        pass

    reg.add("b", int)
    assert reg.names() == ["a", "b"] and list(reg) == ["a", "b"] and "a" in reg and len(reg) == 2
    assert reg.get("a") is A
    with pytest.raises(UsageError) as e:
        reg.get("c")
    assert str(e.value) == "--widget 'c': unknown widget; known: a, b"
    with pytest.raises(ValueError, match="registered twice"):
        reg.add("a", str)
    with pytest.raises(ValueError):
        reg.register(" a")


def test_registry_imports_its_packages_on_first_read(tmp_path, monkeypatch):
    """The modules of `packages` register when the registry is first read, not when it is made; one whose import
    fails is named in the unknown-name message instead of taking the others down; a missing package is no error."""
    pkg = tmp_path / "h27_plugins"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "good.py").write_text(
        textwrap.dedent("""
        from voebench.evaluate.registry import Registry
        import h27_registry_home
        h27_registry_home.REG.add("good", 1)
        """)
    )
    (pkg / "broken.py").write_text("import h27_no_such_module\n")
    home = tmp_path / "h27_registry_home.py"
    home.write_text(
        "from voebench.evaluate.registry import Registry\n"
        "REG = Registry('plugin', flag='--plugin', packages=('h27_plugins', 'h27_missing_package'))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for m in ("h27_registry_home", "h27_plugins", "h27_plugins.good", "h27_plugins.broken"):
        monkeypatch.delitem(sys.modules, m, raising=False)
    home_mod = importlib.import_module("h27_registry_home")
    assert "h27_plugins.good" not in sys.modules  # nothing imported yet
    assert home_mod.REG.names() == ["good"]
    assert set(home_mod.REG.failed) == {"h27_plugins.broken", "h27_missing_package"}
    with pytest.raises(UsageError) as e:
        home_mod.REG.get("other")
    assert "known: good; not loaded: h27_plugins.broken (No module named 'h27_no_such_module')" in str(e.value)
    for m in ("h27_registry_home", "h27_plugins", "h27_plugins.good"):
        sys.modules.pop(m, None)


def test_predict_fakes_and_judges_by_name(capsys):
    """predict's `fake:` models and judges are registries: --help lists them, an unknown one is refused by name."""
    assert predict_fake.JUDGES.names() == ["exact", "messy", "constant"]
    assert predict_fake.MODELS.names() == ["oracle", "never", "all", "random"]
    with pytest.raises(SystemExit):
        main(["predict", "--help"])
    out = "".join(capsys.readouterr().out.split())  # argparse may wrap at a hyphen ("videomae-\nrandom")
    assert "fake:<oracle|never|all|random>" in out and "fake:<exact|messy|constant>" in out
    assert "fake:<yes|no" not in out  # evaluate's fakes are not predict's
    from voebench.evaluate.predict.cli import make_judge, make_model

    with pytest.raises(UsageError) as e:
        make_judge("fake:wise", None)
    assert str(e.value) == "--judge 'fake:wise': unknown fake judge 'wise'; known: exact, messy, constant"
    with pytest.raises(UsageError, match="unknown fake predict model 'yes'; known: oracle, never, all, random"):
        make_model("fake:yes", None, None)
    assert make_judge("fake:messy", None).name == "fake:messy"


def test_world_model_kinds_come_from_their_registry(capsys):
    """`--model` help lists the world-model kinds evaluate/surprise registers, and the VLM kinds."""
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = "".join(capsys.readouterr().out.split())  # argparse wraps long help at hyphens ("videomae-\nrandom")
    for name in WORLD_MODELS.names() or ["vjepa2", "motion-energy"]:
        assert name in out
    assert not set(WORLD_MODELS.names()) & set(MODELS.names())


def test_render_help_names_every_suite(capsys):
    from voebench.generator.suite import SUITE_REFS

    with pytest.raises(SystemExit):
        main(["render", "--help"])
    out = "".join(capsys.readouterr().out.split())  # argparse may wrap at a hyphen ("videomae-\nrandom")
    assert all(name in out for name in SUITE_REFS) and "predict" in out and "newton" in out
