"""XManager's `xmanager.contrib.gcs`: Cloud Storage output paths, as gs://bucket/dir or their
Cloud Storage FUSE form /gcs/bucket/dir (where Vertex AI mounts buckets), and the --xm_gcs_path
flag (defined by sortie.xm_flags)."""

import datetime
import getpass
import os

from absl import app
from absl import flags

from sortie import xm_flags  # pylint: disable=unused-import  (defines --xm_gcs_path)

_GS_PREFIX = 'gs://'
_GCS_FUSE_PREFIX = '/gcs/'
# What get_gcs_url links to (a module attribute, as XManager's, so tests can change it).
gcp_website_url = 'https://console.cloud.google.com'


def suggestion(project_name: str) -> str:
    """A fresh directory for `project_name` in XManager's shared bucket, as XManager suggests."""
    stamp = datetime.datetime.now().strftime('%Y%m%d-%H%M%S')
    return os.path.join(_GS_PREFIX, 'xcloud_public_bucket', getpass.getuser(),
                        f'{project_name}-{stamp}')


def _flag_value(project_name: str, required: bool) -> str:
    value = flags.FLAGS.xm_gcs_path
    if not value:
        if required:
            raise app.UsageError('--xm_gcs_path is missing. Suggestion: '
                                 f'--xm_gcs_path={suggestion(project_name)}')
        return suggestion(project_name)
    if not is_gcs_path(value):
        raise app.UsageError('--xm_gcs_path not in gs://bucket/directory or /gcs/path format. '
                             f'Suggestion: --xm_gcs_path={suggestion(project_name)}')
    return str(value)


def get_gcs_path_or_suggestion(project_name: str) -> str:
    """--xm_gcs_path, or a suggested path where it is not given; a malformed one raises
    absl.app.UsageError."""
    return _flag_value(project_name, required=False)


def get_gcs_path_or_fail(project_name: str) -> str:
    """--xm_gcs_path; absl.app.UsageError where it is missing or malformed."""
    return _flag_value(project_name, required=True)


def is_gs_path(path: str) -> bool:
    return path.startswith(_GS_PREFIX)


def is_gcs_fuse_path(path: str) -> bool:
    return path.startswith(_GCS_FUSE_PREFIX)


def is_gcs_path(path: str) -> bool:
    return is_gs_path(path) or is_gcs_fuse_path(path)


def _bucket_and_directory(path: str) -> str:
    for prefix in (_GS_PREFIX, _GCS_FUSE_PREFIX):
        if path.startswith(prefix):
            return path[len(prefix):]
    raise ValueError(f'Path not in gs://bucket/directory or /gcs/path format: {path}')


def get_gcs_url(path: str) -> str:
    """The Cloud Console page of a gs:// or /gcs/ path."""
    return f'{gcp_website_url}/storage/browser/{_bucket_and_directory(path)}'


def get_gcs_fuse_path(path: str) -> str:
    """gs://bucket/dir as /gcs/bucket/dir."""
    return _GCS_FUSE_PREFIX + _bucket_and_directory(path)


def get_gs_path(path: str) -> str:
    """/gcs/bucket/dir as gs://bucket/dir."""
    return _GS_PREFIX + _bucket_and_directory(path)
