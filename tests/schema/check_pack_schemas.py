#!/usr/bin/env python3
"""Keeps docs/pack-schema.json and docs/pack-tests-schema.json in step with the pack reader.

1. Both schemas are valid JSON Schema (draft 2020-12).
2. Every pack.yaml and tests/*.yaml under knowledge_bases/builtin and knowledge_bases/community
   validates against its schema.
3. Each pack in BAD_PACKS (one mistake each) is rejected by the schema and by
   `perfsage kb validate` (exit 6); each pack in GOOD_PACKS (the looser spellings the reader
   takes) is accepted by both, and its tests pass. Each tests file in BAD_TESTS is rejected by
   the tests schema and, where `kb test` can tell, fails `perfsage kb test`.

Run by ctest (tests/integration/pack_schema.cmake):
  check_pack_schemas.py --perfsage build/bin/perfsage --root SOURCE_DIR
Needs Debian's python3-jsonschema and python3-yaml (scripts/setup --test); exits 77 (skipped)
without them.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
    import yaml
except ImportError as e:  # pragma: no cover - reported as a skipped test
    print(f"skipped: {e} (install python3-jsonschema and python3-yaml)")
    sys.exit(77)


class CoreLoader(yaml.SafeLoader):
    """YAML 1.2 core scalars, as yaml-cpp reads them: yes/no/on/off and dates stay strings."""


CoreLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v
        if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"))


def load_yaml(text):
    return yaml.load(text, Loader=CoreLoader)


HEADER = """name: {name}
version: 1.0.0
engine: ">=0.1"
description: a pack written to test the schema
license: Apache-2.0
maintainers: [perfsage]
maturity: sandbox
applies_to: [ascend]
uses: [run, op]
"""

RULE = """  - id: slow_op
    title: "{{?name}} is slow"
    severity: {severity}
    when: |
      (run (base_units ?units&:(> ?units 0)))
      (op (name ?name) (total_us ?t&:(> ?t 100)))
    message: "{{?name}} took {{?t:us}}"
    subjects: [name]
    evidence: {{total_us: "?t"}}
    gain: (/ ?t ?units)
    action: {action}
    references: [https://example.org]
"""

TESTS = """cases:
  - name: fires
    facts:
      run: [{base: step, base_us: 1000, base_units: 1}]
      op: [{name: Slow_1, total_us: 500}]
    expect: [{rule: slow_op, subjects: [Slow_1]}]
  - name: silent
    facts:
      run: [{base: step, base_us: 1000, base_units: 1}]
      op: [{name: Fast_1, total_us: 50}]
    expect: []
"""


def pack(name="schema_probe", severity="auto", action="{kind: code_hint, hint: \"fix {?name}\"}",
         extra_top="", rule=None):
    body = HEADER.format(name=name) + extra_top + "rules:\n"
    return body + (rule if rule is not None else RULE.format(severity=severity, action=action))


# (what is wrong, pack.yaml text, extra kb validate options)
BAD_PACKS = [
    ("name with capitals", pack(name="Schema_Probe"), []),
    ("version that is not semver", pack().replace("version: 1.0.0", "version: \"1.0\""), []),
    ("no version", pack().replace("version: 1.0.0\n", ""), []),
    ("unknown severity", pack(severity="urgent"), []),
    ("severity in capitals", pack(severity="High"), []),
    ("unknown maturity", pack().replace("maturity: sandbox", "maturity: beta"), []),
    ("unknown device in applies_to", pack().replace("applies_to: [ascend]", "applies_to: [tpu]"), []),
    ("unknown action kind", pack(action="{kind: shell, hint: x}"), []),
    ("action field of another kind", pack(action="{kind: code_hint, ops: [a]}"), []),
    ("list in a single-valued action field", pack(action="{kind: code_hint, hint: [a, b]}"), []),
    ("action without kind", pack(action="{hint: x}"), []),
    ("job_type that is no number", pack(action="{kind: aoe, ops: [a], job_type: two}"), []),
    ("opt_in that is no boolean", pack(action="{kind: onnx_rewrite, pass: x, opt_in: yes}"), []),
    ("rule id starting with a digit", pack().replace("- id: slow_op", "- id: 1slow"), []),
    ("rule without when", pack().replace(
        "    when: |\n      (run (base_units ?units&:(> ?units 0)))\n"
        "      (op (name ?name) (total_us ?t&:(> ?t 100)))\n", ""), []),
    ("rule-level override merge", pack().replace("  - id: slow_op\n",
                                                  "  - id: slow_op\n    override: merge\n"), []),
    ("pack-level override append", pack(extra_top="override: append\n"), []),
    ("rules as a map", pack().replace("rules:\n  - id: slow_op", "rules:\n  slow_op:\n    id: x"), []),
    ("param long form without default", pack(extra_top="params:\n  x: {doc: \"no default\"}\n"), []),
    ("list of maps", pack(extra_top="lists:\n  l: [{a: 1}]\n"), []),
    ("enabled neither true nor false", pack().replace("  - id: slow_op\n",
                                                      "  - id: slow_op\n    enabled: maybe\n"), []),
    ("subject that is an expression", pack().replace("subjects: [name]", "subjects: [\"(+ 1 2)\"]"), []),
    ("evidence as a list", pack().replace("evidence: {total_us: \"?t\"}", "evidence: [\"?t\"]"), []),
    ("both action and no_action",
     pack().replace("    references:", "    no_action: \"nothing to change\"\n    references:"), []),
    ("an empty no_action", pack().replace("    action: {kind: code_hint, hint: \"fix {?name}\"}\n",
                                          "    no_action: \" \"\n"), []),
    ("unknown top-level key (a warning: refused with --strict)",
     pack(extra_top="homepage: https://example.org\n"), ["--strict"]),
    ("unknown rule key (a warning: refused with --strict)",
     pack().replace("  - id: slow_op\n", "  - id: slow_op\n    priority: 3\n"), ["--strict"]),
]

GOOD_PACKS = [
    ("the probe itself", pack()),
    ("scalar maintainers, tags, references and subjects",
     pack().replace("maintainers: [perfsage]", "maintainers: perfsage")
     .replace("subjects: [name]", "subjects: \"?name\"")
     .replace("references: [https://example.org]", "references: https://example.org")),
    ("fixed severity and every action kind's fields",
     pack(severity="low", action="{kind: onnx_rewrite, pass: fold, nodes: \"{?name}\", "
          "opt_in: true, caveat: c, hint: h}")),
    ("aoe with a numeric job_type", pack(action="{kind: aoe, ops: [\"{?name}\"], job_type: 2}")),
    ("env_file with one value for a repeated field",
     pack(action="{kind: env_file, set: \"ACLNN_CACHE_LIMIT=100000\", hint: h}")),
    ("no_action instead of an action",
     pack().replace("    action: {kind: code_hint, hint: \"fix {?name}\"}\n",
                    "    no_action: \"a coverage note: nothing in the program to change\"\n")),
    ("a disabled rule needs no when or message", pack() + "  - id: off_rule\n    enabled: false\n"),
    ("enabled spelt yes", pack().replace("  - id: slow_op\n", "  - id: slow_op\n    enabled: yes\n")),
    ("params in both forms, lists and macros",
     pack(extra_top="params:\n  min_us: 100\n  ratio: {default: 0.5, doc: \"a ratio\"}\n"
          "lists:\n  names: [a, b]\nmacros:\n  big: (> ?t ${min_us})\n")
     .replace("(op (name ?name) (total_us ?t&:(> ?t 100)))",
              "(op (name ?name) (total_us ?t&:${big}))")
     .replace("gain: (/ ?t ?units)", "gain: (* (/ ?t ?units) ${ratio})")
     .replace("message: \"{?name} took {?t:us}\"", "message: \"{?name} took {?t:us} (${names})\"")),
]

# (what is wrong, tests file text, whether `kb test` fails it too). `kb test` ignores keys it
# does not know, so a misspelt key checks nothing there: only the schema catches it.
BAD_TESTS = [
    ("cases as a map", "cases:\n  fires: {expect: []}\n", True),
    ("expectation without rule", TESTS.replace("{rule: slow_op, subjects: [Slow_1]}",
                                               "{subjects: [Slow_1]}"), True),
    ("unknown severity", TESTS.replace("{rule: slow_op, subjects: [Slow_1]}",
                                       "{rule: slow_op, severity: urgent}"), True),
    ("misspelt gain_min", TESTS.replace("expect: [{rule: slow_op, subjects: [Slow_1]}]",
                                        "expect: [{rule: slow_op, gain_mn: 1e9}]"), False),
]


def schema_errors(validator, doc):
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message}"
            for e in validator.iter_errors(doc)]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfsage", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    failures = []
    schemas = {}
    for key, name in (("pack", "pack-schema.json"), ("tests", "pack-tests-schema.json")):
        with open(os.path.join(args.root, "docs", name)) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        schemas[key] = jsonschema.Draft202012Validator(schema)

    # 2. Every pack of the project.
    checked = 0
    for source in ("builtin", "community"):
        base = os.path.join(args.root, "knowledge_bases", source)
        for name in sorted(os.listdir(base)):
            pdir = os.path.join(base, name)
            if not os.path.isfile(os.path.join(pdir, "pack.yaml")):
                continue
            files = [("pack", os.path.join(pdir, "pack.yaml"))]
            tdir = os.path.join(pdir, "tests")
            if os.path.isdir(tdir):
                files += [("tests", os.path.join(tdir, t)) for t in sorted(os.listdir(tdir))
                          if t.endswith((".yaml", ".yml"))]
            for kind, path in files:
                with open(path, encoding="utf-8") as f:
                    doc = load_yaml(f.read())
                for err in schema_errors(schemas[kind], doc):
                    failures.append(f"{path}: {err}")
                checked += 1
    if checked < 20:
        failures.append(f"only {checked} pack and tests files found under knowledge_bases")

    # 3. Deliberately wrong and deliberately loose packs, through both.
    with tempfile.TemporaryDirectory() as tmp:
        def write_pack(label, text, tests=TESTS):
            d = os.path.join(tmp, re.sub(r"[^a-z0-9]+", "_", label.lower()), "schema_probe")
            os.makedirs(os.path.join(d, "tests"), exist_ok=True)
            with open(os.path.join(d, "pack.yaml"), "w") as f:
                f.write(text)
            with open(os.path.join(d, "tests", "probe.yaml"), "w") as f:
                f.write(tests)
            return d

        for label, text, options in BAD_PACKS:
            d = write_pack(label, text)
            if not schema_errors(schemas["pack"], load_yaml(text)):
                failures.append(f"bad pack '{label}': the schema accepts it")
            r = run([args.perfsage, "kb", "validate", d, *options])
            if r.returncode != 6:
                failures.append(f"bad pack '{label}': kb validate {' '.join(options)} exited "
                                f"{r.returncode}, expected 6\n{r.stdout}{r.stderr}")
        for label, text in GOOD_PACKS:
            d = write_pack(label, text)
            errs = schema_errors(schemas["pack"], load_yaml(text))
            if errs:
                failures.append(f"good pack '{label}': the schema refuses it: {errs}")
            r = run([args.perfsage, "kb", "validate", "--strict", d])
            if r.returncode != 0:
                failures.append(f"good pack '{label}': kb validate --strict exited "
                                f"{r.returncode}\n{r.stdout}{r.stderr}")
            r = run([args.perfsage, "kb", "test", d])
            if r.returncode != 0:
                failures.append(f"good pack '{label}': kb test exited {r.returncode}\n"
                                f"{r.stdout}{r.stderr}")
        for label, text, kb_test_fails in BAD_TESTS:
            d = write_pack("tests " + label, pack(), tests=text)
            if not schema_errors(schemas["tests"], load_yaml(text)):
                failures.append(f"bad tests file '{label}': the tests schema accepts it")
            r = run([args.perfsage, "kb", "test", d])
            if kb_test_fails and r.returncode != 6:
                failures.append(f"bad tests file '{label}': kb test exited {r.returncode}, "
                                f"expected 6\n{r.stdout}")

    for f in failures:
        print("FAIL", f)
    print(f"{checked} project files checked, {len(BAD_PACKS)} bad and {len(GOOD_PACKS)} good "
          f"packs, {len(BAD_TESTS)} bad tests files: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
