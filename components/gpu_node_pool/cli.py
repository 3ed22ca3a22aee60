"""``gpupool``: the command line of gpu-node-pools.

    gpupool plan --stack dev [--json] [--project-dir DIR] [--policy-pack-config FILE]
    gpupool validate --stack dev
    gpupool render --stack prod --out DIR [--project-dir DIR]
    gpupool audit --cluster-dump FILE | [--kubeconfig FILE] [--context NAME]  (see gpu_node_pool.audit.cli)

Exit codes: 0 clean, 1 a mandatory policy failed, 2 the stack config is invalid (or the
stack file is missing).
"""

from __future__ import annotations

import argparse
import json
import sys

from . import plan as plan_mod
from .audit import cli as audit_cli
from .config import ConfigError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpupool", description="Offline plan and checks for gpu-node-pools stacks.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="run the program under Pulumi mocks and report pools, taints and the device plugin")
    p.add_argument("--stack", required=True, help="stack name: reads stacks/Pulumi.<stack>.yaml")
    p.add_argument("--json", action="store_true", help="print JSON for machines")
    p.add_argument("--project-dir", default=None, help="directory with Pulumi.yaml (default: search from cwd)")
    p.add_argument(
        "--policy-pack-config",
        default=None,
        metavar="FILE",
        help="policy pack config JSON, as for pulumi preview --policy-pack-config "
        '(e.g. {"all": "mandatory", "gpu-toleration-allowlist": {"allowedNamespaces": ["ml"]}})',
    )
    r = sub.add_parser(
        "render", help="write the Kubernetes objects the stack declares (and the chart reference) as YAML files"
    )
    r.add_argument("--stack", required=True, help="stack name: reads stacks/Pulumi.<stack>.yaml")
    r.add_argument("--out", required=True, help="output directory (created; stale generated files are removed)")
    r.add_argument("--project-dir", default=None, help="directory with Pulumi.yaml (default: search from cwd)")
    v = sub.add_parser("validate", help="validate the stack config only")
    v.add_argument("--stack", required=True)
    v.add_argument("--project-dir", default=None)
    audit_cli.register(sub)
    return parser


def _fail(args: argparse.Namespace, text: str, issues: list[dict[str, str]] | None = None) -> int:
    """Report a mistake that stops the command before a plan exists: exit 2 (JSON with --json)."""
    if getattr(args, "json", False):
        issues = issues if issues is not None else [{"path": "", "message": text.removeprefix("error: ")}]
        json.dump({"stack": args.stack, "exitCode": 2, "cloudApiCalled": False, "configErrors": issues}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(text, file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "audit":
        return args.run(args)
    try:
        if args.command == "validate":
            project = plan_mod.find_project(args.project_dir)
            config, _, path = plan_mod.load_stack_file(project, args.stack)
            from .config import load_stack_config

            load_stack_config(config, path.name)
            print(f"stack {args.stack!r}: config is valid")
            return 0
        if args.command == "render":
            from . import render_files

            return render_files.run(args.stack, args.out, args.project_dir)
        policy_config = None
        if args.policy_pack_config:
            from .policies import load_policy_pack_config, resolve_config

            policy_config = load_policy_pack_config(args.policy_pack_config)
            resolve_config(policy_config)  # a config mistake stops before the program runs
        result = plan_mod.plan_stack(args.stack, args.project_dir, policy_config=policy_config)
    except ConfigError as err:
        return _fail(args, str(err), [{"path": i.path, "message": i.message} for i in err.issues])
    except (FileNotFoundError, FileExistsError, NotADirectoryError, IsADirectoryError) as err:
        return _fail(args, f"error: {err}")
    except ValueError as err:  # PolicyConfigError: the policy pack config file is invalid
        from .policies import PolicyConfigError

        if not isinstance(err, PolicyConfigError):
            raise
        return _fail(args, f"error: {err}", [{"path": "--policy-pack-config", "message": str(err)}])
    plan_mod.print_result(result, as_json=args.json)
    return result.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def main_exit() -> None:
    """Console-script entry point: exit with :func:`main`'s code."""
    sys.exit(main())
