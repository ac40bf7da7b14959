// Where a server listens and a client connects: a filesystem socket under SKIFF_COMCH_DIR
// (default /tmp/skiff-comch), named from the PCI address of the host function and the server
// name. The DPU side uses its representor's address, the host side its own: both name the same
// host function, so the two ends meet. A filesystem path (not an abstract socket) so that
// processes in different network namespaces still meet.
#pragma once

#include <skiff/core/status.hpp>

#include <string>
#include <string_view>

namespace skiff::core::comch {

// The directory of the channel sockets.
std::string socket_dir();

// The socket path for (function PCI address, server name): "<dir>/<pci>@<name>", or
// "<dir>/<pci>#<hash of name>" when that is too long for a sockaddr_un; an error when even that
// does not fit (a long SKIFF_COMCH_DIR).
Result<std::string> socket_path(std::string_view function_pci, std::string_view server_name);

// Creates the socket directory (mode 0700) or checks the one there (runtime_dir.hpp): both ends
// call it before they bind or connect.
Status ensure_socket_dir();

} // namespace skiff::core::comch
