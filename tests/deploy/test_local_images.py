"""The registry-free build and the host-network overlay (files only, no Docker daemon)."""

from __future__ import annotations

import configparser
import importlib.util

from .support import DEPLOY, ROOT, load_yaml

DOCKERFILES = [DEPLOY / "docker" / "Dockerfile", DEPLOY / "docker" / "Dockerfile.cuda"]


def _build_images():
    spec = importlib.util.spec_from_file_location("build_images", DEPLOY / "build_images.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_host_overlay_puts_every_compose_service_on_the_host_network():
    # A service left on the default network makes Compose create a bridge network, which
    # must never exist on these machines (dockerd runs with --bridge=none).
    services = set(load_yaml(DEPLOY / "compose.yaml")["services"])
    overlay = load_yaml(DEPLOY / "compose.host.yaml")["services"]
    assert services == set(overlay)
    assert all(svc.get("network_mode") == "host" for svc in overlay.values())


def test_host_overlay_binds_the_web_listeners_to_loopback():
    env = load_yaml(DEPLOY / "compose.host.yaml")["services"]["web"]["environment"]
    assert env["GUNICORN_BIND"].startswith("127.0.0.1:")
    assert env["GUNICORN_METRICS_BIND"].startswith("127.0.0.1:")


def test_build_pip_conf_keeps_remote_indexes_and_drops_local_paths():
    # given the host's pip configuration, with local paths that do not exist in a build
    host = {
        "index-url": "https://mirror.invalid/simple",
        "extra-index-url": "file:///opt/pypi/simple https://extra.invalid/simple",
        "find-links": "/opt/wheels",
        "constraint": "/etc/xdg/pip/constraints.txt",
        "default-timeout": "180",
        "cert": "/etc/ssl/certs/ca-certificates.crt",
    }
    # when
    conf = configparser.ConfigParser()
    conf.read_string(_build_images().build_pip_conf(host, host["cert"]))
    # then
    assert dict(conf["global"]) == {
        "index-url": "https://mirror.invalid/simple",
        "extra-index-url": "https://extra.invalid/simple",
        "default-timeout": "180",
        "cert": "/run/secrets/pip_cert",
    }


def test_build_pip_conf_names_no_cert_when_the_host_has_none():
    conf = _build_images().build_pip_conf({}, None)
    assert conf == "[global]\n\n"


def test_dockerfiles_pull_no_frontend_image_and_keep_secrets_out_of_layers():
    for path in DOCKERFILES:
        text = path.read_text()
        # parser directives live only at the very top of a Dockerfile
        assert not text.lower().startswith("# syntax"), f"{path.name}: it pulls a frontend image"
        assert "--mount=type=secret,id=pip_cert" in text
        copies = [ln for ln in text.splitlines() if ln.startswith(("COPY", "ADD"))]
        assert not [ln for ln in copies if "pip" in ln or "cert" in ln], path.name


def test_cpu_image_refuses_a_cuda_torch():
    text = (DEPLOY / "docker" / "Dockerfile").read_text()
    assert "assert not torch.version.cuda" in text


def test_local_torch_wheels_are_gitignored_but_their_folder_exists():
    assert "/deploy/docker/wheels/*.whl" in (ROOT / ".gitignore").read_text().splitlines()
    assert (DEPLOY / "docker" / "wheels" / "README.md").is_file()
