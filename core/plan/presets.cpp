#include "presets.h"

#include "template/templatevalues.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace ClusterDeck {

namespace {

const QString kPyTorch = QStringLiteral("pytorch");
const QString kTensorFlow = QStringLiteral("tensorflow");
const QString kMpi = QStringLiteral("mpi");
const QString kSsh = QStringLiteral("ssh");

int portNamed(const KernelSpec &k, const QString &name, int fallback)
{
    for (const ServicePort &p : k.ports) {
        if (p.name == name)
            return p.port;
    }
    return fallback;
}

void applyPyTorch(ClusterPlan &plan)
{
    const KernelSpec &primary = plan.kernels.first();
    const QString masterAddr = primary.hostname;
    // The primary's env decides the port so every kernel agrees even if roles set it differently.
    const QString masterPort = primary.env.value(QStringLiteral("MASTER_PORT"),
                                                 QString::number(Presets::kPyTorchMasterPort));
    const QString worldSize = QString::number(plan.kernels.size());
    for (KernelSpec &k : plan.kernels) {
        k.env.insert(QStringLiteral("MASTER_ADDR"), masterAddr);
        k.env.insert(QStringLiteral("MASTER_PORT"), masterPort);
        k.env.insert(QStringLiteral("WORLD_SIZE"), worldSize);
        k.env.insert(QStringLiteral("RANK"), QString::number(k.localRank));
        k.env.insert(QStringLiteral("NODE_RANK"), QString::number(k.localRank));
        // One process per kernel: the rank within the kernel is always 0.
        k.env.insert(QStringLiteral("LOCAL_RANK"), QStringLiteral("0"));
    }
}

void applyTensorFlow(ClusterPlan &plan)
{
    QJsonObject cluster;
    for (const RoleCount &rc : std::as_const(plan.roles)) {
        QJsonArray addresses;
        for (const KernelSpec &k : std::as_const(plan.kernels)) {
            if (k.role == rc.role)
                addresses.append(QString(
                    k.hostname + QLatin1Char(':') +
                    QString::number(portNamed(k, QStringLiteral("tf"), Presets::kTensorFlowPort))));
        }
        cluster.insert(rc.role, addresses);
    }
    for (KernelSpec &k : plan.kernels) {
        const QJsonObject task{{QStringLiteral("type"), k.role},
                               {QStringLiteral("index"), k.roleIdx - 1}};
        const QJsonObject config{{QStringLiteral("cluster"), cluster},
                                 {QStringLiteral("task"), task}};
        k.env.insert(QStringLiteral("TF_CONFIG"),
                     QString::fromUtf8(QJsonDocument(config).toJson(QJsonDocument::Compact)));
    }
}

QByteArray mpiHostfile(const ClusterPlan &plan)
{
    QByteArray hostfile = "# Written by ClusterDeck: one line per kernel, in rank order.\n";
    for (const KernelSpec &k : std::as_const(plan.kernels)) {
        const int slots = k.resources.cpus ? std::max(1, int(std::ceil(*k.resources.cpus))) : 1;
        hostfile += k.hostname.toUtf8() + " slots=" + QByteArray::number(slots) + '\n';
    }
    return hostfile;
}

void applyMpi(ClusterPlan &plan)
{
    const QByteArray hostfile = mpiHostfile(plan);
    for (KernelSpec &k : plan.kernels) {
        k.files.append({QLatin1String(Presets::kHostfilePath), hostfile, 0644, QString()});
        k.env.insert(QStringLiteral("OMPI_MCA_orte_default_hostfile"),
                     QLatin1String(Presets::kHostfilePath));
        k.env.insert(QStringLiteral("OMPI_MCA_plm_rsh_agent"), QStringLiteral("ssh"));
        // Containers usually lack CMA permissions; fall back to copy-in/copy-out.
        k.env.insert(QStringLiteral("OMPI_MCA_btl_vader_single_copy_mechanism"),
                     QStringLiteral("none"));
        const QString user = k.user.section(QLatin1Char(':'), 0, 0);
        if (user.isEmpty() || user == QLatin1String("root") || user == QLatin1String("0")) {
            k.env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT"), QStringLiteral("1"));
            k.env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), QStringLiteral("1"));
        }
    }
}

QByteArray sshConfig(const ClusterPlan &plan)
{
    QByteArray config =
        "# Written by ClusterDeck: `ssh <hostname>` reaches any kernel of this session.\n";
    for (const RoleCount &rc : std::as_const(plan.roles)) {
        QStringList hosts;
        QString user;
        for (const KernelSpec &k : std::as_const(plan.kernels)) {
            if (k.role == rc.role) {
                hosts.append(k.hostname);
                user = k.user.section(QLatin1Char(':'), 0, 0);
            }
        }
        if (hosts.isEmpty())
            continue;
        config += "\n# role " + rc.role.toUtf8() + "\nHost " +
                  hosts.join(QLatin1Char(' ')).toUtf8() + '\n';
        config +=
            "    User " +
            (user.isEmpty() || user == QLatin1String("0") ? QByteArray("root") : user.toUtf8()) +
            '\n';
        config += "    IdentityFile ~/.ssh/id_ed25519\n"
                  "    StrictHostKeyChecking no\n"
                  "    UserKnownHostsFile /dev/null\n"
                  "    LogLevel ERROR\n";
    }
    return config;
}

QString sshConfigPath(const QString &user)
{
    return Presets::homeOf(user) + QStringLiteral("/.ssh/config");
}

void applySsh(ClusterPlan &plan, const SshKeyPair &keys)
{
    const QByteArray config = sshConfig(plan);
    for (KernelSpec &k : plan.kernels) {
        const QString ssh = Presets::homeOf(k.user) + QStringLiteral("/.ssh/");
        const QString owner = k.user;
        k.files.append({ssh + QStringLiteral("id_ed25519"), keys.privateKey, 0600, owner});
        k.files.append({ssh + QStringLiteral("id_ed25519.pub"), keys.publicKey, 0644, owner});
        k.files.append({ssh + QStringLiteral("authorized_keys"), keys.publicKey, 0600, owner});
        k.files.append({ssh + QStringLiteral("config"), config, 0644, owner});
    }
}

QByteArray hostsFile(const ClusterPlan &plan)
{
    QByteArray out;
    for (const KernelSpec &k : plan.kernels)
        out += k.hostname.toUtf8() + '\n';
    return out;
}

QByteArray replicasFile(const ClusterPlan &plan)
{
    QByteArray out;
    for (const RoleCount &rc : plan.roles)
        out += rc.role.toUtf8() + ' ' + QByteArray::number(rc.count) + '\n';
    return out;
}

// Replaces the content of `path` in `k`, or adds the file.
void setFile(KernelSpec &k, const QString &path, const QByteArray &content, int mode,
             const QString &owner)
{
    for (PlannedFile &f : k.files) {
        if (f.path == path) {
            f.content = content;
            return;
        }
    }
    k.files.append({path, content, mode, owner});
}

} // namespace

void Presets::applyMembershipFiles(ClusterPlan &plan)
{
    for (KernelSpec &k : plan.kernels)
        k.env.insert(QStringLiteral("BACKEND_CLUSTER_HOSTS_FILE"), QLatin1String(kHostsFilePath));
    refreshMembership(plan);
}

void Presets::refreshMembership(ClusterPlan &plan)
{
    const QByteArray hosts = hostsFile(plan);
    const QByteArray replicas = replicasFile(plan);
    const bool mpi = plan.presets.contains(kMpi);
    const bool ssh = plan.presets.contains(kSsh);
    const QByteArray hostfile = mpi ? mpiHostfile(plan) : QByteArray();
    const QByteArray config = ssh ? sshConfig(plan) : QByteArray();
    for (KernelSpec &k : plan.kernels) {
        setFile(k, QLatin1String(kHostsFilePath), hosts, 0644, QString());
        setFile(k, QLatin1String(kReplicasFilePath), replicas, 0644, QString());
        if (mpi)
            setFile(k, QLatin1String(kHostfilePath), hostfile, 0644, QString());
        if (ssh)
            setFile(k, sshConfigPath(k.user), config, 0644, k.user);
    }
}

bool Presets::isMembershipFile(const QString &path, const QString &user)
{
    return path == QLatin1String(kHostsFilePath) || path == QLatin1String(kReplicasFilePath) ||
           path == QLatin1String(kHostfilePath) || path == sshConfigPath(user);
}

QStringList Presets::effective(const QStringList &requested)
{
    QStringList result;
    for (const QString &name : {kPyTorch, kTensorFlow, kMpi, kSsh}) {
        if (requested.contains(name) || (name == kSsh && requested.contains(kMpi)))
            result.append(name);
    }
    return result;
}

bool Presets::needsSshKeyPair(const QStringList &requested)
{
    return effective(requested).contains(kSsh);
}

QString Presets::homeOf(const QString &user)
{
    const QString name = user.section(QLatin1Char(':'), 0, 0);
    if (name.isEmpty() || name == QLatin1String("root") || name == QLatin1String("0"))
        return QStringLiteral("/root");
    return QStringLiteral("/home/") + name;
}

Result<void> Presets::apply(ClusterPlan &plan, const std::optional<SshKeyPair> &keys)
{
    if (plan.kernels.isEmpty())
        return {};
    if (plan.presets.contains(kSsh) && (!keys || !keys->isValid()))
        return fail(Error::Kind::Invalid, QStringLiteral("preset ssh"),
                    QStringLiteral("the ssh preset needs a session keypair (SshKeyPair::generate() "
                                   "passed as LaunchOptions::sshKeyPair)"));
    if (plan.presets.contains(kPyTorch))
        applyPyTorch(plan);
    if (plan.presets.contains(kTensorFlow))
        applyTensorFlow(plan);
    if (plan.presets.contains(kMpi))
        applyMpi(plan);
    if (plan.presets.contains(kSsh))
        applySsh(plan, *keys);
    return {};
}

} // namespace ClusterDeck
