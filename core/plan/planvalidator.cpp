#include "planvalidator.h"

#include "template/templatevalues.h"

#include <QDir>
#include <QSet>
#include <QUuid>

#include <cmath>

namespace ClusterDeck {

namespace {

using namespace TemplateValues;

QString checkResources(const Resources &r)
{
    if (r.cpus && (!std::isfinite(*r.cpus) || *r.cpus <= 0 || *r.cpus > kMaxCpus))
        return QStringLiteral("cpus %1 is not in (0, %2]").arg(*r.cpus).arg(kMaxCpus);
    if (r.memoryBytes && (*r.memoryBytes < 1 || *r.memoryBytes > kMaxMemoryBytes))
        return QStringLiteral("memory %1 bytes is not between 1 byte and %2")
            .arg(*r.memoryBytes)
            .arg(formatMemory(kMaxMemoryBytes));
    if (r.gpus && (*r.gpus < 0 || *r.gpus > kMaxGpus))
        return QStringLiteral("gpus %1 is not in 0-%2").arg(*r.gpus).arg(kMaxGpus);
    return {};
}

QString checkKernel(const ClusterPlan &plan, const KernelSpec &k)
{
    if (const QString problem = checkRoleName(k.role); !problem.isEmpty())
        return QStringLiteral("role: %1").arg(problem);
    if (k.roleIdx < 1 || k.hostname != hostname(k.role, k.roleIdx) ||
        k.hostname.size() > kMaxHostnameLength)
        return QStringLiteral("hostname '%1' is not role '%2' with index %3")
            .arg(k.hostname, k.role)
            .arg(k.roleIdx);
    if (k.containerName != QStringLiteral("cd-%1-%2").arg(plan.sessionId.left(8), k.hostname))
        return QStringLiteral("container name '%1' is not the kernel's").arg(k.containerName);
    if (k.kernelId.isEmpty())
        return QStringLiteral("the kernel has no id");
    if (k.image.trimmed().isEmpty() || k.image.contains(QLatin1Char(' ')))
        return QStringLiteral("image '%1' is not an image reference").arg(k.image);
    // Images may bring names a template could not write (Docker takes any name without '='):
    // only what would break the container's "NAME=value" list is refused.
    for (auto it = k.env.cbegin(); it != k.env.cend(); ++it) {
        if (it.key().isEmpty() || it.key().contains(QLatin1Char('=')) ||
            it.key().contains(QChar(0)))
            return QStringLiteral("env: '%1' is not a valid variable name").arg(it.key());
    }
    QSet<QString> targets;
    for (const Mount &m : k.mounts) {
        if (const QString problem = checkMount(m); !problem.isEmpty())
            return QStringLiteral("mounts: %1").arg(problem);
        if (const QString hostPath = hostPathOf(m); !hostPath.isEmpty() && !plan.allowHostPaths)
            return QStringLiteral("mounts: %1").arg(hostPathRefusal(hostPath));
        if (targets.contains(m.target))
            return QStringLiteral("mounts: target '%1' is mounted twice").arg(m.target);
        targets.insert(m.target);
    }
    QSet<QString> portNames;
    QSet<int> portNumbers;
    for (const ServicePort &p : k.ports) {
        if (const QString problem = checkServicePort(p); !problem.isEmpty())
            return QStringLiteral("ports: %1").arg(problem);
        if (portNames.contains(p.name) || portNumbers.contains(p.port))
            return QStringLiteral("ports: '%1' (%2) is given twice").arg(p.name).arg(p.port);
        portNames.insert(p.name);
        portNumbers.insert(p.port);
    }
    if (!k.bindAddress.isEmpty() && !isIpAddress(k.bindAddress))
        return QStringLiteral("bindAddress '%1' is not an IP address").arg(k.bindAddress);
    if (const QString problem = checkResources(k.resources); !problem.isEmpty())
        return QStringLiteral("resources: %1").arg(problem);
    for (const PlannedFile &f : k.files) {
        if (!f.path.startsWith(QLatin1Char('/')) || QDir::cleanPath(f.path) != f.path)
            return QStringLiteral("file '%1' is not a clean absolute path").arg(f.path);
        if (f.mode < 0 || f.mode > 07777)
            return QStringLiteral("file %1 has mode %2").arg(f.path).arg(f.mode, 0, 8);
    }
    return {};
}

} // namespace

Result<void> PlanValidator::validate(const ClusterPlan &plan, const QString &where)
{
    // The nil UUID is a render's (no session yet); anything else must be a UUID as we write it.
    if (QUuid::fromString(plan.sessionId).toString(QUuid::WithoutBraces) != plan.sessionId)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("session id '%1' is not a UUID").arg(plan.sessionId));
    if (plan.networkName != QStringLiteral("cd-") + plan.sessionId.left(8))
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("network '%1' is not the session's").arg(plan.networkName));
    QSet<QString> hostnames;
    for (const KernelSpec &k : plan.kernels) {
        if (hostnames.contains(k.hostname))
            return fail(Error::Kind::Invalid, where,
                        QStringLiteral("kernel %1 is planned twice").arg(k.hostname));
        hostnames.insert(k.hostname);
        if (const QString problem = checkKernel(plan, k); !problem.isEmpty())
            return fail(Error::Kind::Invalid, where,
                        QStringLiteral("kernel %1: %2").arg(k.hostname, problem));
    }
    return {};
}

QStringList PlanValidator::hostPaths(const ClusterPlan &plan)
{
    QStringList paths;
    for (const KernelSpec &k : plan.kernels) {
        for (const Mount &m : k.mounts) {
            const QString path = hostPathOf(m);
            if (path.isEmpty())
                continue;
            const QString shown =
                path + (m.readOnly ? QStringLiteral(" (ro)") : QStringLiteral(" (rw)"));
            if (!paths.contains(shown))
                paths.append(shown);
        }
    }
    return paths;
}

} // namespace ClusterDeck
