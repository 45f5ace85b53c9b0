#pragma once

#include "clustertemplate.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace ClusterDeck::TemplateValues {

// Value syntax shared by the loader, the writer, the resolver and the CLI, so every place accepts
// and prints the same spellings.

// The most memory one kernel may ask for (1 PiB): far beyond any host, and small enough that the
// requests of a whole fleet add up without overflow.
constexpr qint64 kMaxMemoryBytes = qint64(1) << 50;
// `512m`, `4g`, `1.5g`, `1024`, `256Mi`, `2GB` (binary units: k = 1024) -> bytes; nullopt if
// invalid, below one byte or above kMaxMemoryBytes.
std::optional<qint64> parseMemory(const QString &text);
// The shortest exact spelling: 4294967296 -> "4g", 1536 MiB -> "1536m".
QString formatMemory(qint64 bytes);

// The most CPUs and GPUs one kernel may ask for; a template and a stored spec are held to the
// same limits.
inline constexpr double kMaxCpus = 4096;
inline constexpr int kMaxGpus = 64;

// `1.5`, `2` -> cpus in (0, kMaxCpus]; nullopt if invalid.
std::optional<double> parseCpus(const QString &text);
QString formatCpus(double cpus);

// `name:protocol:port`; on failure returns nullopt and sets *error to what is expected.
std::optional<ServicePort> parseServicePort(const QString &text, QString *error = nullptr);
// Checks the parts of an already split port; empty string when valid.
QString checkServicePort(const ServicePort &port);
// "jupyter:http:8080,ssh:tcp:2200" (the image label io.clusterdeck.service-ports)
std::optional<QList<ServicePort>> parseServicePortList(const QString &text,
                                                       QString *error = nullptr);

// `SRC:DST[:ro|rw]`; an absolute SRC is a bind mount, anything else a named volume.
std::optional<Mount> parseMountSpec(const QString &text, QString *error = nullptr);
// Empty string when valid, else what is wrong.
QString checkMount(const Mount &mount);
// The host path a mount exposes to the kernel (a bind's source; a volume whose driver options bind
// or mount a host path: that path), cleaned ("/data/.." -> "/"); empty when it exposes none.
QString hostPathOf(const Mount &mount);
// The error for a host path used without `allowHostPaths: true` (in template `templateName`).
QString hostPathRefusal(const QString &hostPath, const QString &templateName = {});

// docs/contracts.md: `[a-z][a-z0-9-]{0,30}`, must not end in a digit. Empty string when valid.
QString checkRoleName(const QString &name);
// Environment variable names: `[A-Za-z_][A-Za-z0-9_]*`.
bool isValidEnvName(const QString &name);
// An IPv4 or IPv6 address literal (`bindAddress`): "0.0.0.0", "192.168.1.5", "::1".
bool isIpAddress(const QString &text);
// `KEY=VALUE` (VALUE may be empty or contain '=').
std::optional<std::pair<QString, QString>> parseEnvAssignment(const QString &text);

inline constexpr int kMaxHostnameLength = 63;
QString hostname(const QString &role, int idx);

QString startupOrderName(StartupOrder order);
std::optional<StartupOrder> parseStartupOrder(const QString &text);
QString pullPolicyName(PullPolicy policy);
std::optional<PullPolicy> parsePullPolicy(const QString &text);
QString failureActionName(FailurePolicy::Action action);
std::optional<FailurePolicy::Action> parseFailureAction(const QString &text);
// none, primary-exits, all-exit, role-exits
QString successKindName(SuccessPolicy::Kind kind);
std::optional<SuccessPolicy::Kind> parseSuccessKind(const QString &text);

// A duration in whole seconds: `90` (seconds), `30s`, `10m`, `2h`, `1d`, or a sequence such as
// `1h30m` (largest unit first); nullopt if invalid or negative.
std::optional<qint64> parseDuration(const QString &text);
// The shortest exact spelling: 600 -> "10m", 5400 -> "90m", 0 -> "0s".
QString formatDuration(qint64 seconds);
// The longest ttlAfterFinished a template may give (365 days); absent means "keep".
inline constexpr qint64 kMaxTtlAfterFinished = 365LL * 86400;
QString mountTypeName(Mount::Type type);
std::optional<Mount::Type> parseMountType(const QString &text);

QStringList knownPresets();

// Precedence helpers: entries of `overlay` replace those of `base` with the same key (port name,
// mount target); new ones are appended in order.
QList<ServicePort> mergePorts(const QList<ServicePort> &base, const QList<ServicePort> &overlay);
QList<Mount> mergeMounts(const QList<Mount> &base, const QList<Mount> &overlay);
Resources mergeResources(const Resources &base, const Resources &overlay);
// `overlay` wins field by field; maps and lists are merged as above.
TaskTemplate mergeTasks(const TaskTemplate &base, const TaskTemplate &overlay);

// The closest candidate within a small edit distance, or empty: the "did you mean" of errors.
QString closestMatch(const QString &word, const QStringList &candidates);
int editDistance(const QString &a, const QString &b);

} // namespace ClusterDeck::TemplateValues
