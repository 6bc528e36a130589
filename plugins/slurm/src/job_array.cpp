#include "job_array.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace sortie::slurm {
namespace {

bool is_per_app_directive(const std::string& line) {
  for (const char* option : {"#SBATCH --job-name=", "#SBATCH --comment=", "#SBATCH --output="}) {
    if (line.rfind(option, 0) == 0) return true;
  }
  return false;
}

// The #SBATCH lines every task of the array shares.
std::string shared_directives(const BatchPlan& plan) {
  std::string directives;
  std::istringstream script(plan.script);
  for (std::string line; std::getline(script, line);) {
    if (line.rfind("#SBATCH ", 0) == 0 && !is_per_app_directive(line)) directives += line + "\n";
  }
  return directives;
}

// "1,3-5,9" for {1, 3, 4, 5, 9}.
std::string index_ranges(std::vector<long> indices) {
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  std::string ranges;
  for (size_t first = 0; first < indices.size();) {
    size_t last = first;
    while (last + 1 < indices.size() && indices[last + 1] == indices[last] + 1) ++last;
    if (!ranges.empty()) ranges += ",";
    ranges += std::to_string(indices[first]);
    if (last > first) ranges += "-" + std::to_string(indices[last]);
    first = last + 1;
  }
  return ranges;
}

}  // namespace

std::string task_naming_commands(const std::vector<BatchPlan>& plans,
                                 const std::string& array_job) {
  std::string commands;
  for (size_t i = 1; i < plans.size(); ++i) {
    commands +=
        "update JobId=" + array_job + "_" + std::to_string(i) + " JobName=" + plans[i].name + "\n";
  }
  return commands;
}

std::vector<std::string> scancel_arguments(const std::vector<std::string>& job_ids) {
  std::vector<std::string> arrays;  // in order of first appearance
  std::map<std::string, std::vector<long>> tasks;
  std::vector<std::string> plain;
  for (const std::string& id : job_ids) {
    const size_t underscore = id.find('_');
    const std::string task = underscore == std::string::npos ? "" : id.substr(underscore + 1);
    if (task.empty() || task.size() > 9 ||
        task.find_first_not_of("0123456789") != std::string::npos) {
      plain.push_back(id);
      continue;
    }
    const std::string array = id.substr(0, underscore);
    if (!tasks.count(array)) arrays.push_back(array);
    tasks[array].push_back(std::stol(task));
  }
  std::vector<std::string> arguments;
  for (const std::string& array : arrays) {
    arguments.push_back(array + "_[" + index_ranges(tasks[array]) + "]");
  }
  arguments.insert(arguments.end(), plain.begin(), plain.end());
  return arguments;
}

std::string array_key(const BatchPlan& plan) {
  const std::string directives = shared_directives(plan);
  if (directives.find("#SBATCH hetjob\n") != std::string::npos || !plan.dependents.empty()) {
    return "";
  }
  return directives + "parallelism " + std::to_string(plan.array_parallelism) + "\nsbatch " +
         plan.tools.sbatch;
}

std::string array_script(const std::vector<BatchPlan>& plans) {
  const BatchPlan& first = plans.front();
  std::string script = "#!/bin/bash\n";
  script += "#SBATCH --job-name=" + first.name + "\n";
  script += "#SBATCH --comment=sortie-array=" + first.app_id + "\n";
  script += "#SBATCH --output=/dev/null\n";
  script += "#SBATCH --array=0-" + std::to_string(plans.size() - 1);
  if (first.array_parallelism > 0) script += "%" + std::to_string(first.array_parallelism);
  script += "\n" + shared_directives(first);
  // exec keeps the batch shell's pid, so --signal=B:USR1 still reaches the app's script.
  script += "case \"$SLURM_ARRAY_TASK_ID\" in\n";
  for (size_t i = 0; i < plans.size(); ++i) {
    script += "  " + std::to_string(i) + ") job_dir='" + plans[i].job_dir + "' ;;\n";
  }
  script += "  *) echo \"no app for array task $SLURM_ARRAY_TASK_ID\" >&2; exit 1 ;;\nesac\n";
  script += "exec /bin/bash \"$job_dir/batch.sh\" >\"$job_dir/slurm-$SLURM_JOB_ID.out\" 2>&1\n";
  return script;
}

}  // namespace sortie::slurm
