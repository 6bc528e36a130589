"""A TorchX runner script: run an AppDef and a component, wait, read their logs. Only the imports
are sortie's (`from torchx import specs`, `from torchx.runner import get_runner` in TorchX)."""

from sortie import specs
from sortie.runner import get_runner


def main():
    app = specs.AppDef(
        name='echo',
        roles=[specs.Role(name='echo', image='/tmp', entrypoint='echo', args=['hi'])],
    )
    with get_runner() as runner:
        app_handle = runner.run(app, 'local_cwd')
        status = runner.wait(app_handle)
        status.raise_for_status()
        for line in runner.log_lines(app_handle, 'echo', k=0):
            print(line, end='')

        component_handle = runner.run_component('utils.echo', ['--msg', 'hi'], 'local_cwd')
        print(runner.wait(component_handle).state)
        for line in runner.log_lines(component_handle, 'echo', k=0):
            print(line, end='')


if __name__ == '__main__':
    main()
