#include "templatevalues.h"

#include <QDir>
#include <QLocale>
#include <QRegularExpression>

#include <arpa/inet.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ClusterDeck::TemplateValues {

std::optional<qint64> parseMemory(const QString &text)
{
    static const QRegularExpression re(
        QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?)\\s*(?:([kmgtKMGT])i?[bB]?|[bB])?\\s*$"));
    const QRegularExpressionMatch m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    bool ok = false;
    const double number = m.captured(1).toDouble(&ok);
    if (!ok)
        return std::nullopt;
    double factor = 1;
    switch (m.captured(2).toLower().isEmpty() ? 0 : m.captured(2).toLower().at(0).toLatin1()) {
    case 'k':
        factor = 1024.0;
        break;
    case 'm':
        factor = 1024.0 * 1024;
        break;
    case 'g':
        factor = 1024.0 * 1024 * 1024;
        break;
    case 't':
        factor = 1024.0 * 1024 * 1024 * 1024;
        break;
    default:
        break;
    }
    const double bytes = std::round(number * factor);
    if (bytes < 1 || bytes > double(kMaxMemoryBytes))
        return std::nullopt;
    return qint64(bytes);
}

QString formatMemory(qint64 bytes)
{
    static const std::pair<qint64, char> units[] = {{1024LL * 1024 * 1024 * 1024, 't'},
                                                    {1024LL * 1024 * 1024, 'g'},
                                                    {1024LL * 1024, 'm'},
                                                    {1024LL, 'k'}};
    for (const auto &[size, unit] : units) {
        if (bytes >= size && bytes % size == 0)
            return QString::number(bytes / size) + QLatin1Char(unit);
    }
    return QString::number(bytes);
}

std::optional<double> parseCpus(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?|\\.\\d+)\\s*$"));
    const QRegularExpressionMatch m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    bool ok = false;
    const double cpus = m.captured(1).toDouble(&ok);
    if (!ok || cpus <= 0 || cpus > kMaxCpus)
        return std::nullopt;
    return cpus;
}

QString formatCpus(double cpus)
{
    return QString::number(cpus, 'g', QLocale::FloatingPointShortest);
}

QString checkServicePort(const ServicePort &port)
{
    static const QRegularExpression nameRe(QStringLiteral("^[a-z][a-z0-9-]{0,30}$"));
    if (!nameRe.match(port.name).hasMatch())
        return QStringLiteral("port name '%1' must match [a-z][a-z0-9-]{0,30}").arg(port.name);
    if (port.protocol != QLatin1String("http") && port.protocol != QLatin1String("tcp"))
        return QStringLiteral("protocol '%1' must be http or tcp").arg(port.protocol);
    if (port.port < 1 || port.port > 65535)
        return QStringLiteral("port %1 is outside 1-65535").arg(port.port);
    return {};
}

std::optional<ServicePort> parseServicePort(const QString &text, QString *error)
{
    const QStringList parts = text.trimmed().split(QLatin1Char(':'));
    auto failWith = [&](const QString &msg) -> std::optional<ServicePort> {
        if (error)
            *error = msg;
        return std::nullopt;
    };
    if (parts.size() != 3)
        return failWith(
            QStringLiteral("expected name:protocol:port (e.g. web:http:8080), got '%1'").arg(text));
    bool ok = false;
    const int number = parts.at(2).toInt(&ok);
    if (!ok)
        return failWith(QStringLiteral("port '%1' is not a number in 1-65535").arg(parts.at(2)));
    ServicePort port{parts.at(0), parts.at(1), number};
    const QString problem = checkServicePort(port);
    if (!problem.isEmpty())
        return failWith(problem);
    return port;
}

std::optional<QList<ServicePort>> parseServicePortList(const QString &text, QString *error)
{
    QList<ServicePort> ports;
    for (const QString &item : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const auto port = parseServicePort(item.trimmed(), error);
        if (!port)
            return std::nullopt;
        ports.append(*port);
    }
    return ports;
}

QString checkMount(const Mount &mount)
{
    static const QRegularExpression volumeRe(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_.-]*$"));
    if (!mount.target.startsWith(QLatin1Char('/')))
        return QStringLiteral("target '%1' must be an absolute path").arg(mount.target);
    if (mount.type == Mount::Type::Bind) {
        if (!mount.source.startsWith(QLatin1Char('/')))
            return QStringLiteral("bind source '%1' must be an absolute host path")
                .arg(mount.source);
        if (!mount.driver.isEmpty() || !mount.driverOptions.isEmpty())
            return QStringLiteral("driver and driverOptions apply to volumes only");
    } else if (!volumeRe.match(mount.source).hasMatch()) {
        return QStringLiteral("volume name '%1' must match [A-Za-z0-9][A-Za-z0-9_.-]*")
            .arg(mount.source);
    }
    return {};
}

QString hostPathOf(const Mount &mount)
{
    if (mount.type == Mount::Type::Bind)
        return QDir::cleanPath(mount.source);
    // The local driver mounts what `device` names with mount(8)'s `type` and `o`: a bind, or a
    // block device / directory of the host, unlike an NFS or CIFS share (":/export", "//server").
    const QString device = mount.driverOptions.value(QStringLiteral("device"));
    const QStringList options =
        mount.driverOptions.value(QStringLiteral("o")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    const bool binds = options.contains(QStringLiteral("bind")) ||
                       options.contains(QStringLiteral("rbind")) ||
                       mount.driverOptions.value(QStringLiteral("type")) == u"none";
    if (device.startsWith(QLatin1Char('/')))
        return QDir::cleanPath(device);
    if (binds)
        return device.isEmpty() ? QStringLiteral("(a bind without a device)") : device;
    return {};
}

QString hostPathRefusal(const QString &hostPath, const QString &templateName)
{
    return QStringLiteral("'%1' is a path on the host: kernels could read or change the host "
                          "through it (set allowHostPaths: true at the top of the cluster "
                          "template%2 to allow host paths)")
        .arg(hostPath,
             templateName.isEmpty() ? QString() : QStringLiteral(" '%1'").arg(templateName));
}

std::optional<Mount> parseMountSpec(const QString &text, QString *error)
{
    const QStringList parts = text.split(QLatin1Char(':'));
    if (parts.size() < 2 || parts.size() > 3 || parts.at(0).isEmpty() || parts.at(1).isEmpty()) {
        if (error)
            *error = QStringLiteral("expected SRC:DST[:ro], got '%1'").arg(text);
        return std::nullopt;
    }
    Mount mount;
    mount.source = parts.at(0);
    mount.target = parts.at(1);
    mount.type =
        mount.source.startsWith(QLatin1Char('/')) ? Mount::Type::Bind : Mount::Type::Volume;
    if (parts.size() == 3) {
        if (parts.at(2) == QLatin1String("ro")) {
            mount.readOnly = true;
        } else if (parts.at(2) != QLatin1String("rw")) {
            if (error)
                *error = QStringLiteral("mount option '%1' must be ro or rw").arg(parts.at(2));
            return std::nullopt;
        }
    }
    const QString problem = checkMount(mount);
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return std::nullopt;
    }
    return mount;
}

QString checkRoleName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[a-z][a-z0-9-]{0,30}$"));
    if (name.isEmpty())
        return QStringLiteral("role name must not be empty");
    if (!re.match(name).hasMatch())
        return QStringLiteral("role name '%1' must match [a-z][a-z0-9-]{0,30}").arg(name);
    if (name.back().isDigit())
        return QStringLiteral("role name '%1' must not end in a digit").arg(name);
    return {};
}

bool isValidEnvName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return re.match(name).hasMatch();
}

std::optional<std::pair<QString, QString>> parseEnvAssignment(const QString &text)
{
    const qsizetype eq = text.indexOf(QLatin1Char('='));
    if (eq <= 0)
        return std::nullopt;
    const QString key = text.left(eq);
    if (!isValidEnvName(key))
        return std::nullopt;
    return std::make_pair(key, text.mid(eq + 1));
}

QString hostname(const QString &role, int idx)
{
    return role + QString::number(idx);
}

QString startupOrderName(StartupOrder order)
{
    return order == StartupOrder::InOrder ? QStringLiteral("in-order") : QStringLiteral("parallel");
}

std::optional<StartupOrder> parseStartupOrder(const QString &text)
{
    for (StartupOrder o : {StartupOrder::Parallel, StartupOrder::InOrder}) {
        if (startupOrderName(o) == text)
            return o;
    }
    return std::nullopt;
}

QString pullPolicyName(PullPolicy policy)
{
    switch (policy) {
    case PullPolicy::Always:
        return QStringLiteral("always");
    case PullPolicy::Never:
        return QStringLiteral("never");
    case PullPolicy::IfNotPresent:
        break;
    }
    return QStringLiteral("if-not-present");
}

std::optional<PullPolicy> parsePullPolicy(const QString &text)
{
    for (PullPolicy p : {PullPolicy::IfNotPresent, PullPolicy::Always, PullPolicy::Never}) {
        if (pullPolicyName(p) == text)
            return p;
    }
    return std::nullopt;
}

QString failureActionName(FailurePolicy::Action action)
{
    switch (action) {
    case FailurePolicy::Action::TerminateSession:
        return QStringLiteral("terminate-session");
    case FailurePolicy::Action::RestartSession:
        return QStringLiteral("restart-session");
    case FailurePolicy::Action::Ignore:
        return QStringLiteral("ignore");
    }
    return {};
}

std::optional<FailurePolicy::Action> parseFailureAction(const QString &text)
{
    for (auto a : {FailurePolicy::Action::TerminateSession, FailurePolicy::Action::RestartSession,
                   FailurePolicy::Action::Ignore}) {
        if (failureActionName(a) == text)
            return a;
    }
    return std::nullopt;
}

QString successKindName(SuccessPolicy::Kind kind)
{
    switch (kind) {
    case SuccessPolicy::Kind::None:
        return QStringLiteral("none");
    case SuccessPolicy::Kind::PrimaryExits:
        return QStringLiteral("primary-exits");
    case SuccessPolicy::Kind::AllExit:
        return QStringLiteral("all-exit");
    case SuccessPolicy::Kind::RoleExits:
        return QStringLiteral("role-exits");
    }
    return {};
}

std::optional<SuccessPolicy::Kind> parseSuccessKind(const QString &text)
{
    for (auto k : {SuccessPolicy::Kind::None, SuccessPolicy::Kind::PrimaryExits,
                   SuccessPolicy::Kind::AllExit, SuccessPolicy::Kind::RoleExits}) {
        if (successKindName(k) == text)
            return k;
    }
    return std::nullopt;
}

namespace {

struct DurationUnit
{
    char suffix;
    qint64 seconds;
};
constexpr DurationUnit kDurationUnits[] = {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}};

} // namespace

std::optional<qint64> parseDuration(const QString &text)
{
    static const QRegularExpression plain(QStringLiteral(R"(^[0-9]{1,12}$)"));
    static const QRegularExpression units(QStringLiteral(
        R"(^(?:([0-9]{1,9})d)?(?:([0-9]{1,9})h)?(?:([0-9]{1,9})m)?(?:([0-9]{1,9})s)?$)"));
    if (plain.match(text).hasMatch())
        return text.toLongLong();
    const auto match = units.match(text);
    if (text.isEmpty() || !match.hasMatch())
        return std::nullopt;
    qint64 total = 0;
    for (int i = 0; i < 4; ++i) {
        if (match.hasCaptured(i + 1))
            total += match.captured(i + 1).toLongLong() * kDurationUnits[i].seconds;
    }
    return total;
}

QString formatDuration(qint64 seconds)
{
    for (const DurationUnit &u : kDurationUnits) {
        if (seconds > 0 && seconds % u.seconds == 0)
            return QString::number(seconds / u.seconds) + QLatin1Char(u.suffix);
    }
    return QString::number(seconds) + QLatin1Char('s');
}

QString mountTypeName(Mount::Type type)
{
    return type == Mount::Type::Bind ? QStringLiteral("bind") : QStringLiteral("volume");
}

std::optional<Mount::Type> parseMountType(const QString &text)
{
    if (text == QLatin1String("bind"))
        return Mount::Type::Bind;
    if (text == QLatin1String("volume"))
        return Mount::Type::Volume;
    return std::nullopt;
}

QStringList knownPresets()
{
    return {QStringLiteral("pytorch"), QStringLiteral("tensorflow"), QStringLiteral("mpi"),
            QStringLiteral("ssh")};
}

QList<ServicePort> mergePorts(const QList<ServicePort> &base, const QList<ServicePort> &overlay)
{
    QList<ServicePort> result = base;
    for (const ServicePort &port : overlay) {
        auto it = std::find_if(result.begin(), result.end(),
                               [&](const ServicePort &p) { return p.name == port.name; });
        if (it != result.end())
            *it = port;
        else
            result.append(port);
    }
    return result;
}

QList<Mount> mergeMounts(const QList<Mount> &base, const QList<Mount> &overlay)
{
    QList<Mount> result = base;
    for (const Mount &mount : overlay) {
        auto it = std::find_if(result.begin(), result.end(),
                               [&](const Mount &m) { return m.target == mount.target; });
        if (it != result.end())
            *it = mount;
        else
            result.append(mount);
    }
    return result;
}

Resources mergeResources(const Resources &base, const Resources &overlay)
{
    Resources result = base;
    if (overlay.cpus)
        result.cpus = overlay.cpus;
    if (overlay.memoryBytes)
        result.memoryBytes = overlay.memoryBytes;
    if (overlay.gpus)
        result.gpus = overlay.gpus;
    return result;
}

bool isIpAddress(const QString &text)
{
    const QByteArray a = text.toLatin1();
    unsigned char buffer[sizeof(in6_addr)];
    return inet_pton(AF_INET, a.constData(), buffer) == 1 ||
           inet_pton(AF_INET6, a.constData(), buffer) == 1;
}

TaskTemplate mergeTasks(const TaskTemplate &base, const TaskTemplate &overlay)
{
    TaskTemplate result = base;
    auto pick = [](QString &target, const QString &value) {
        if (!value.isEmpty())
            target = value;
    };
    pick(result.image, overlay.image);
    if (overlay.pullPolicy)
        result.pullPolicy = overlay.pullPolicy;
    pick(result.workingDir, overlay.workingDir);
    pick(result.onScale, overlay.onScale);
    pick(result.user, overlay.user);
    pick(result.bootstrap, overlay.bootstrap);
    pick(result.bindAddress, overlay.bindAddress);
    if (!overlay.entrypoint.isEmpty())
        result.entrypoint = overlay.entrypoint;
    if (!overlay.command.isEmpty())
        result.command = overlay.command;
    result.env.insert(overlay.env);
    result.labels.insert(overlay.labels);
    result.resources = mergeResources(base.resources, overlay.resources);
    result.mounts = mergeMounts(base.mounts, overlay.mounts);
    result.ports = mergePorts(base.ports, overlay.ports);
    return result;
}

int editDistance(const QString &a, const QString &b)
{
    std::vector<int> prev(size_t(b.size()) + 1), cur(size_t(b.size()) + 1);
    for (size_t j = 0; j < prev.size(); ++j)
        prev[j] = int(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        cur[0] = int(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int cost = a.at(i - 1).toLower() == b.at(j - 1).toLower() ? 0 : 1;
            cur[size_t(j)] =
                std::min({prev[size_t(j)] + 1, cur[size_t(j - 1)] + 1, prev[size_t(j - 1)] + cost});
        }
        std::swap(prev, cur);
    }
    return prev[size_t(b.size())];
}

QString closestMatch(const QString &word, const QStringList &candidates)
{
    QString best;
    int bestDistance = std::numeric_limits<int>::max();
    for (const QString &candidate : candidates) {
        const int d = editDistance(word, candidate);
        if (d < bestDistance) {
            bestDistance = d;
            best = candidate;
        }
    }
    // Typos, not unrelated words: at most 2 edits, and fewer than half the word.
    const int limit = std::min<int>(2, std::max<int>(1, int(word.size()) / 2));
    return bestDistance <= limit ? best : QString();
}

} // namespace ClusterDeck::TemplateValues
