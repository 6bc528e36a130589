"""XManager's `--xm_*` launch flags (module xmanager.xm_flags) for absl launch scripts run by
`sortie launch`: each is defined with XManager's name and default, so a script's flags parse as
under XManager. sortie's packagers, store and schedulers do that work their own way, so a flag
given a value other than its default is refused when the flags are parsed, naming the flag and
what to use instead (docs/python.md)."""

from absl import flags

_IMAGES = 'sortie\'s docker packager builds images with the local Docker Engine'

# (name, kind, XManager's default, what to use instead of another value; None: every value
# is honoured)
_FLAGS = (
    ('xm_build_image_locally', 'boolean', True, _IMAGES),
    ('xm_use_docker_command', 'boolean', True, _IMAGES),
    ('xm_show_docker_command_progress', 'boolean', False, _IMAGES),
    # sortie always resolves the late bindings it makes (sortie.xm_cloud), wrapped or not.
    ('xm_wrap_late_bindings', 'boolean', False, None),
    ('xm_cloud_build_timeout_seconds', 'integer', 1200, _IMAGES),
    ('xm_use_cloud_build_cache', 'boolean', False, _IMAGES),
    ('xm_use_kaniko', 'boolean', False, _IMAGES),
    ('xm_kaniko_cache_ttl', 'string', '336h', _IMAGES),
    ('xm_gcp_service_account_name', 'string', 'xmanager',
     'the vertex run option service_account (-cfg or .sortieconfig)'),
    ('xm_k8s_service_account_name', 'string', 'default',
     'the kubernetes run option service_account (-cfg or .sortieconfig)'),
    ('xm_db_yaml_config_path', 'string', None,
     'sortie keeps experiments in its store ($SORTIE_STATE_DIR)'),
    ('xm_upgrade_db', 'boolean', False, 'sortie migrates its store itself'),
    # The program the bazel packagers run (bazel_command(), below).
    ('xm_bazel_command', 'string', 'bazel', None),
    ('xm_use_multiplexer', 'boolean', None, '`sortie log` follows a job\'s output'),
    ('xm_open_multiplexer_window', 'integer', None, '`sortie log` follows a job\'s output'),
    ('xm_subprocess_docker_impl', 'boolean', False, _IMAGES),
    # Read by xmanager.contrib.gcs (sortie.contrib.gcs).
    ('xm_gcs_path', 'string', None, None),
)


def _define(name, kind, default, instead):
    if instead is None:
        return getattr(flags, f'DEFINE_{kind}')(name, default, 'XManager\'s flag')
    holder = getattr(flags, f'DEFINE_{kind}')(name, default, f'XManager\'s flag; sortie takes '
                                                           f'only its default ({default!r})')
    flags.register_validator(
        name, lambda value, default=default: value == default,
        message=f'--{name} is not supported by sortie with a value other than its default '
                f'({default!r}): {instead}')
    return holder


if 'xm_build_image_locally' not in flags.FLAGS:
    for _name, _kind, _default, _instead in _FLAGS:
        globals()[_name[3:].upper()] = _define(_name, _kind, _default, _instead)


def bazel_command(current):
    """The bazel command (SORTIE_BAZEL's form: the program, then Bazel startup options) once
    --xm_bazel_command was given: its program in place of `current`'s, startup options kept;
    else `current`."""
    flag = flags.FLAGS['xm_bazel_command']
    if not (flags.FLAGS.is_parsed() and flag.present):
        return current
    return ' '.join([flag.value] + (current or '').split()[1:])
