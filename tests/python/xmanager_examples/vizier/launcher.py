"""The calls of XManager's examples/vizier: a Vertex AI Vizier study (google.cloud.aiplatform)
exploring a PythonContainer's parameters on Vertex AI (xmanager.vizier.vizier_cloud)."""
from absl import app
from xmanager import xm
from xmanager import xm_local
from xmanager.vizier import vizier_cloud


def main(_):
    with xm_local.create_experiment(experiment_title='polynomial') as experiment:
        spec = xm.PythonContainer(path='.', base_image='gcr.io/deeplearning-platform-release/'
                                  'base-cpu', entrypoint=xm.ModuleName('polynomial'))
        [executable] = experiment.package([xm.Packageable(
            executable_spec=spec, executor_spec=xm_local.Vertex.Spec())])
        vizier_cloud.VizierExploration(
            experiment=experiment, job=xm.Job(executable=executable, executor=xm_local.Vertex()),
            study_factory=vizier_cloud.NewStudy(study_config=None), num_trials_total=3,
            num_parallel_trial_runs=2).launch()


if __name__ == '__main__':
    app.run(main)
