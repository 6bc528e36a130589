"""The calls of XManager's examples/vizier: a Vertex AI Vizier study (google.cloud.aiplatform)
exploring a PythonContainer's parameters on Vertex AI (xmanager.vizier.vizier_cloud). Like
XManager's, it imports google.cloud.aiplatform_v1beta1 first, for the study's spec."""
from absl import app

from google.cloud import aiplatform_v1beta1 as aip

from xmanager import xm
from xmanager import xm_local
from xmanager.vizier import vizier_cloud


def get_study_spec() -> aip.StudySpec:
    parameter = aip.StudySpec.ParameterSpec.DoubleValueSpec(min_value=-2.0, max_value=2.0)
    return aip.StudySpec(
        algorithm=aip.StudySpec.Algorithm.RANDOM_SEARCH,
        parameters=[aip.StudySpec.ParameterSpec(parameter_id=name, double_value_spec=parameter)
                    for name in ('x', 'y')],
        metrics=[aip.StudySpec.MetricSpec(
            metric_id='loss', goal=aip.StudySpec.MetricSpec.GoalType.MINIMIZE)])


def main(_):
    with xm_local.create_experiment(experiment_title='polynomial') as experiment:
        spec = xm.PythonContainer(path='.', base_image='gcr.io/deeplearning-platform-release/'
                                  'base-cpu', entrypoint=xm.ModuleName('polynomial'))
        [executable] = experiment.package([xm.Packageable(
            executable_spec=spec, executor_spec=xm_local.Vertex.Spec())])
        vizier_cloud.VizierExploration(
            experiment=experiment, job=xm.Job(executable=executable, executor=xm_local.Vertex()),
            study_factory=vizier_cloud.NewStudy(study_config=get_study_spec()),
            num_trials_total=3, num_parallel_trial_runs=2).launch()


if __name__ == '__main__':
    app.run(main)
