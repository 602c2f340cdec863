"""The command line's surface: ``bayesnb --help`` and every command's ``--help`` list these commands and options.

A snapshot taken before the CLI was rebuilt from its command modules (each module's
``register(subparsers)``): moving a command's arguments next to its handler must not add, drop,
rename or reorder an option. Each entry lists the parser's actions in order, an option by all
its spellings (``-o/--output``), a positional argument by its name. The one change of the
rebuild: ``sample`` is listed beside ``impute``, the other command of its module
(:mod:`bayesnb.cli.generate`), instead of after ``fit-imputer``.
"""

import argparse

from bayesnb.cli import build_parser

SURFACE = {
    "": ("-h/--help --version --debug -q/--quiet command"),
    "demo": ("-h/--help --debug -q/--quiet --out --quick --seed"),
    "fit": ("-h/--help --debug -q/--quiet data --target --family --numeric-family --alpha --columns "
            "--drop-unlabelled --na-values --numeric --categorical -o/--output --force --chunksize --classes "
            "--semi-supervised --structure --k --edge-score --for-imputation --configurations --label-given "
            "--search-rows --seed --missingness --privacy --public-unlabelled --key-file"),
    "mcmc": ("-h/--help --debug -q/--quiet data --target --family --numeric-family --alpha --columns "
             "--drop-unlabelled --na-values --numeric --categorical --model --key-file --structure --k "
             "--edge-score --components -o/--output --draws --warmup --chains --seed --target-accept --rows "
             "--force"),
    "predict": ("-h/--help --debug -q/--quiet model data --na-values --numeric --categorical --key-file "
                "-o/--output --force --format --proba --keep --column --interval --log --joint --each-draw "
                "--draws --seed"),
    "score": ("-h/--help --debug -q/--quiet model data --na-values --numeric --categorical --key-file --target "
              "--drop-unlabelled"),
    "info": ("-h/--help --debug -q/--quiet model --key-file --json --columns-shown"),
    "impute": ("-h/--help --debug -q/--quiet model data --na-values --numeric --categorical --key-file "
               "-o/--output --force --format --target --no-labels --strategy -m/--imputations --latent --seed "
               "--float-format"),
    "sample": ("-h/--help --debug -q/--quiet model --key-file -n -o/--output --force --format --target --seed "
               "--prior --proper --float-format"),
    "impute-table": ("-h/--help --debug -q/--quiet data -o/--output --force --format --target --drop-unlabelled "
                     "--label-given --configurations --missingness --search-rows --seed --na-values --numeric "
                     "--categorical --float-format"),
    "fit-imputer": ("-h/--help --debug -q/--quiet data -o/--output --force --target --drop-unlabelled --label-given "
                    "--configurations --missingness --search-rows --seed --na-values --numeric --categorical "
                    "--key-file"),
    "datasets": ("-h/--help --debug -q/--quiet action name -o/--output --force --format"),
    "check": ("-h/--help --debug -q/--quiet model data --na-values --numeric --categorical --key-file --target "
              "--drop-unlabelled --replicates --seed --marginals --json -o/--output --force --format"),
    "outliers": ("-h/--help --debug -q/--quiet model data --na-values --numeric --categorical --key-file "
                 "-o/--output --force --format --contamination --target --float-format"),
    "posterior": ("-h/--help --debug -q/--quiet model --key-file -o/--output --force --format --draws --seed --coef "
                  "--ci --each-draw --float-format"),
    "explain": ("-h/--help --debug -q/--quiet model data --na-values --numeric --categorical --key-file "
                "-o/--output --force --format --long --float-format"),
    "pool": ("-h/--help --debug -q/--quiet data --imputation --term --estimate --variance --std-error --dfcom "
             "--conf-level --synthetic --n-original --n-synthetic --inference -o/--output --force --format --na-values --float-format"),
    "evaluate-synthetic": ("-h/--help --debug -q/--quiet real synthetic --target --drop-unlabelled --real-test --bins --json "
                           "-o/--output --force --format --seed --na-values --numeric --categorical"),
    "synthesize": ("-h/--help --debug -q/--quiet data -n -o/--output --force --format --target --drop-unlabelled "
                   "--structure --latent --missing --numeric-family --proper --seed --na-values --numeric --categorical --float-format"),
}


def _actions(parser):
    return " ".join("/".join(a.option_strings) or a.dest for a in parser._actions).split()


def test_top_level_commands_and_options_are_unchanged():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == [c for c in SURFACE if c]
    assert _actions(parser) == SURFACE[""].split()


def test_every_command_has_the_same_options_in_the_same_order():
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in sub.choices.items():
        assert _actions(parser) == SURFACE[name].split(), name
