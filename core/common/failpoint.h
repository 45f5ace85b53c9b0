#pragma once

namespace ClusterDeck::FailPoint {

// Named places where a test can freeze the process at an exact moment (etcd's gofail, TiKV's
// fail-rs): with CLUSTERDECK_FAILPOINT=<name> in its environment, the process stops itself
// (SIGSTOP) the first time it reaches that place, and goes on when continued (SIGCONT). Without
// the variable it costs one comparison. Points: "restart-before-stop" (a whole-session restart
// has read the kernels and is about to stop and remove their containers), "rollback-before-removal"
// (a failed or cancelled launch has stored its rollback and is about to remove what it made).
void reached(const char *name);

} // namespace ClusterDeck::FailPoint
