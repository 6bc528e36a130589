// The entry point of the vertex plugin: one scheduler, also registered under XManager's older
// name for the same backend (Cloud AI Platform, "caip").
#include <sortie/version.h>

#include <sortie/plugin.hpp>

#include "vertex_scheduler.hpp"

using sortie::vertex::VertexScheduler;

SORTIE_PLUGIN("sortie_vertex", SORTIE_VERSION,
              SORTIE_SCHEDULER("vertex",
                               "Runs an app as a Vertex AI CustomJob, a worker pool per role",
                               VertexScheduler),
              SORTIE_SCHEDULER("caip", "Alias of vertex (Cloud AI Platform, XManager's Caip)",
                               VertexScheduler));
