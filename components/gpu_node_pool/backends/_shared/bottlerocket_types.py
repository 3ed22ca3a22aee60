"""Grammars of Bottlerocket's modeled string types that a ``settings.kubernetes`` value must satisfy.

Each check takes the string a setting holds and returns None (the type takes it), or ``("error", why)`` (the type
refuses it: the settings API refuses the document), or ``("warning", why)`` (this package cannot say: the type's
parser or values were not read in full, so the value is not judged). Sources, all bottlerocket-os/bottlerocket-settings-sdk
``bottlerocket-settings-models/modeled-types/src/``:

* ``Url`` (``shared.rs``@f2ca536): control characters refused; else ``url::Url`` parses it as given, or with ``http://``
  in front ("example.com", "localhost:8080" and "aws:///us-east-1a/i-0abc" are taken; "not a url" is not).
* ``DNSDomain`` (``shared.rs``@f2ca536): control characters refused, no leading ``.``, ``url::Host::parse`` must read a
  domain, not an IP address.
* ``KernelCpuSetValue`` (``shared.rs``@f2ca536): ``^([0-9]+(-[0-9]+)?,?)*([0-9]+(-[0-9]+)?)+$``, not empty (cpuset(7)
  list format: ``0-3,8``).
* ``KubernetesCPUManagerPolicyOption`` (``kubernetes.rs``@25e4241): the one value ``full-pcpus-only`` in the version read;
  a later release may take more of the kubelet's options, so another value is not judged unless it is a near miss.
* ``KubernetesMemorySwapBehavior``: in the settings model since settings-models 0.11.0 (``CHANGELOG.md``), its values
  not read; the kubelet's are ``NoSwap`` and ``LimitedSwap`` (https://kubernetes.io/docs/reference/node/swap-behavior/),
  so another value is not judged.

Pure: the checks follow the sources' rules where they are plain and say "not judged" where the Rust parser (the url
crate's WHATWG host parsing) is not reproduced here.
"""

from __future__ import annotations

import re

from ...text.suggest import closest

__all__ = ["CPU_OPTIONS_SOURCE", "SHARED_SOURCE", "SWAP_BEHAVIORS", "cpu_manager_policy_option", "cpuset",
           "dns_domain", "memory_swap_behavior", "url"]

_TYPES = "bottlerocket-os/bottlerocket-settings-sdk bottlerocket-settings-models/modeled-types/src/"
SHARED_SOURCE = _TYPES + "shared.rs@f2ca536"
CPU_OPTIONS_SOURCE = _TYPES + "kubernetes.rs@25e4241"
SWAP_SOURCE = "https://kubernetes.io/docs/reference/node/swap-behavior/"
#: The kubelet's swap behaviors (SWAP_SOURCE).
SWAP_BEHAVIORS = ("NoSwap", "LimitedSwap")
_CPU_OPTIONS = ("full-pcpus-only",)

#: A scheme as the WHATWG URL standard reads one (``url::Url``): a letter, then letters, digits, ``+ - .``, then ``:``.
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: Forbidden domain code points of the WHATWG URL standard (https://url.spec.whatwg.org/#forbidden-domain-code-point),
#: which ``url::Host::parse`` refuses in a domain.
_FORBIDDEN_HOST = frozenset(" #%/:<>?@[\\]^|\t\n\r")
#: A plain DNS name of lower-case labels (RFC 1123), which any host parser reads as a domain.
_PLAIN_DOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")
_IPV4 = re.compile(r"^[0-9]+(\.[0-9]+){0,3}\.?$")


def _control(text: str) -> str | None:
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127), None)
    return None if bad is None else f"it holds the control character {bad!r}, which Bottlerocket's modeled types refuse"


def url(text: str) -> tuple[str, str] | None:
    """``Url`` (``provider-id``): a URL, with or without a scheme."""
    why = _control(text)
    if why:
        return "error", why
    stripped = text.strip(" ")
    if _SCHEME.match(stripped) and " " not in stripped:
        return None
    host = re.split(r"[/?#]", stripped, maxsplit=1)[0].rpartition("@")[2]
    host = re.sub(r":[0-9]*$", "", host)
    bad = sorted({c for c in host if c in _FORBIDDEN_HOST})
    if not host or bad:
        what = "no host" if not host else f"a host holding {', '.join(repr(c) for c in bad)}"
        return "error", (f"it has no scheme, and read as http://{stripped} it has {what}, which url::Url refuses "
                         f"({SHARED_SOURCE})")
    if _SCHEME.match(stripped) or not re.fullmatch(r"[A-Za-z0-9._~-]+", host):
        return "warning", (f"it is not plainly a URL, and this package does not reproduce the url crate's parsing "
                           f"(Url, {SHARED_SOURCE}), so it is not judged")
    return None


def dns_domain(text: str) -> tuple[str, str] | None:
    """``DNSDomain`` (``cluster-domain``): a DNS domain, not an IP address."""
    why = _control(text)
    if why:
        return "error", why
    if not text:
        return "error", f"it is empty, and DNSDomain needs a domain ({SHARED_SOURCE})"
    if text.startswith("."):
        return "error", f"it starts with '.', which DNSDomain refuses ({SHARED_SOURCE})"
    if _IPV4.match(text) or text.startswith("["):
        return "error", f"it is an IP address, which DNSDomain refuses: it takes a domain ({SHARED_SOURCE})"
    bad = sorted({c for c in text if c in _FORBIDDEN_HOST})
    if bad:
        return "error", (f"it holds {', '.join(repr(c) for c in bad)}, which no domain holds (DNSDomain parses it with "
                         f"url::Host::parse, {SHARED_SOURCE}; https://url.spec.whatwg.org/#forbidden-domain-code-point)")
    if not _PLAIN_DOMAIN.match(text):
        return "warning", (f"it is not a plain DNS name (lower-case labels of a-z, 0-9 and '-' that start and end with a "
                           f"letter or digit), and this package does not reproduce the url crate's host parsing that "
                           f"DNSDomain uses ({SHARED_SOURCE}), so it is not judged; the kubelet's default is cluster.local")
    return None


def cpuset(text: str) -> tuple[str, str] | None:
    """``KernelCpuSetValue`` (``reserved-cpus``): a CPU list such as ``0-1`` or ``0,2,4-7``.

    The source's regular expression, checked without backtracking: comma-separated parts (no empty one), each digit
    runs joined by single ``-``, where a run between two ``-`` has at least two digits (one ending a range, one starting
    the next: ``1-23-4`` is ``1-2`` then ``3-4``)."""
    why = _control(text)
    if why:
        return "error", why
    rule = (f"CPU numbers and ranges joined by commas, as cpuset(7)'s list format writes them ({SHARED_SOURCE}: "
            "^([0-9]+(-[0-9]+)?,?)*([0-9]+(-[0-9]+)?)+$)")
    for part in text.split(","):
        runs = part.split("-")
        if not all(run.isascii() and run.isdigit() for run in runs) or any(len(run) < 2 for run in runs[1:-1]):
            return "error", f"KernelCpuSetValue takes {rule}"
    return None


def cpu_manager_policy_option(text: str) -> tuple[str, str] | None:
    """``KubernetesCPUManagerPolicyOption`` (an item of ``cpu-manager-policy-options``)."""
    if text in _CPU_OPTIONS:
        return None
    near = closest(text, _CPU_OPTIONS, cutoff=0.6)
    if near:
        return "error", (f"the version read takes only \"full-pcpus-only\" ({CPU_OPTIONS_SOURCE}); "
                         f"did you mean \"{near}\"?")
    return "warning", (f"the version of KubernetesCPUManagerPolicyOption read takes only \"full-pcpus-only\" "
                       f"({CPU_OPTIONS_SOURCE}) and a later Bottlerocket may take more, so it is not judged; "
                       "Bottlerocket refuses an option its release lacks and the node would not join")


def memory_swap_behavior(text: str) -> tuple[str, str] | None:
    """``KubernetesMemorySwapBehavior`` (``memory-swap-behavior``): values not read; the kubelet's pass."""
    if text in SWAP_BEHAVIORS:
        return None
    near = closest(text, SWAP_BEHAVIORS, cutoff=0.6)
    hint = f"; did you mean \"{near}\"?" if near else ""
    return "warning", (f"it is no swap behavior the kubelet knows (NoSwap, LimitedSwap: {SWAP_SOURCE}), and this "
                       "package has not read the values of Bottlerocket's KubernetesMemorySwapBehavior, so it is not "
                       f"judged{hint}")
