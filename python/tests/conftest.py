"""One runtime for the whole session: acl.init once (as a pyACL program does), device 0 set."""
import os

import pytest

import acl


@pytest.fixture(scope="session", autouse=True)
def runtime():
    assert acl.init("") == 0, acl.get_recent_err_msg()
    assert acl.rt.set_device(0) == 0, acl.get_recent_err_msg()
    yield
    assert acl.rt.reset_device(0) == 0, acl.get_recent_err_msg()
    assert acl.finalize() == 0, acl.get_recent_err_msg()


@pytest.fixture
def stream():
    s, ret = acl.rt.create_stream()
    assert ret == 0, acl.get_recent_err_msg()
    yield s
    assert acl.rt.destroy_stream(s) == 0


@pytest.fixture
def models_dir():
    path = os.environ.get("ARUN_TEST_MODELS_DIR", "")
    if not path or not os.path.isdir(path):
        pytest.skip("ARUN_TEST_MODELS_DIR does not name the generated test models")
    return path
