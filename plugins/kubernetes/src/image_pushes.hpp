// image_repo: the roles whose image was built on this machine (metadata sortie.local_image,
// docs/payloads.md P-1) run IMAGE_REPO/<name>:<tag> instead, pushed there before any object is
// created, since the cluster cannot pull a local tag.
#ifndef SORTIE_KUBERNETES_IMAGE_PUSHES_HPP
#define SORTIE_KUBERNETES_IMAGE_PUSHES_HPP

#include <sortie/appdef.hpp>
#include <string>
#include <vector>

#include "image_push.hpp"

namespace sortie::kubernetes {

// How the pushes name themselves in dry runs and errors.
image_push::PushOrigin push_origin();

// Where a local image goes under image_repo: its last path component and its tag ("latest" when
// it names none), a digest's hex standing for the tag. INVALID_ARGUMENT naming image_repo when
// the result is not a reference a registry takes.
image_push::ImageReference remote_reference(const std::string& local_image,
                                            const std::string& image_repo);

// With image_repo set, points every locally built role at its remote reference (dropping the
// sortie.local_image mark) and returns the pushes, one per local image; empty otherwise, and
// the roles are left for refuse_unsupported to refuse.
std::vector<image_push::ImagePush> plan_image_pushes(AppDef& app, const std::string& image_repo);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_IMAGE_PUSHES_HPP
