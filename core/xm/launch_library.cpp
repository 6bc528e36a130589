// libsortie_launch (Sortie::launch): the launch API of sortie/xm.hpp as one shared library. Its
// code is the static sortie_xm library, linked whole; this file only gives the target a source.
#include <sortie/xm.hpp>
