// An XManager-style launcher in C++: a 2x2 hyperparameter sweep of one trainer (four work units)
// plus a work unit running a server and a client as one job group, all on the local executor.
//   sweep_launcher DIR   (DIR holds train.sh)
#include <cstdio>
#include <sortie/xm.hpp>

namespace xm = sortie::xm;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (the directory holding train.sh)\n", argv[0]);
    return 2;
  }
  try {
    xm::Options options;
    options.launch_dir = argv[1];
    xm::Experiment experiment = xm::Experiment::create("c++ sweep", options);

    // Packaging runs once; "--epochs=2" is baked into the executable and comes first.
    const std::vector<xm::Executable> executables = experiment.package(
        {xm::Packageable{xm::Binary{"train.sh"}, xm::Args{{"epochs", 2}}, {}, "trainer"}});
    const xm::Executable& trainer = executables.front();

    xm::Executor local;
    local.requirements = xm::JobRequirements::parse({{"cpu", "1"}, {"ram", "256MiB"}}, "local");

    for (const xm::Args& hyperparameters :
         xm::product({{"lr", {0.1, 0.01}}, {"batch_size", {16, 32}}})) {
      const xm::WorkUnit unit = experiment.add(xm::Job{trainer, local, "train", {}, {}},
                                               xm::JobArgs{hyperparameters, {}});
      std::printf("work unit %d: %s\n", unit.id, unit.jobs.front().app.c_str());
    }

    xm::JobGroup group;
    group.add("server", xm::Job{trainer, local, "", xm::Args{{"role", "server"}}, {}})
        .add("client", xm::Job{trainer, local, "", xm::Args{{"role", "client"}}, {}});
    const xm::WorkUnit gang =
        experiment.add(group, {{"client", {xm::Args{{"verbose", true}}, {}}}});
    std::printf("work unit %d: %zu jobs in %s\n", gang.id, gang.jobs.size(),
                gang.jobs.front().app.c_str());

    const xm::State state = experiment.wait_until_complete();
    std::printf("experiment %lld %s\n", static_cast<long long>(experiment.id()),
                xm::to_string(state));
    // The store's summary, as `sortie experiments list` shows it: the newest experiment is this
    // one.
    for (const xm::ExperimentSummary& listed : xm::list_experiments(1, options)) {
      std::printf("listed %lld '%s': %lld work units,", static_cast<long long>(listed.id),
                  listed.title.c_str(), static_cast<long long>(listed.work_units));
      for (const std::string& unit_state : listed.states) std::printf(" %s", unit_state.c_str());
      std::printf("\n");
    }
    return state == xm::State::kSucceeded ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sweep_launcher: %s\n", error.what());
    return 1;
  }
}
