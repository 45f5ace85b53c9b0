#include "sessionspec.h"

#include "common/labels.h"
#include "plan/composelabels.h"
#include "plan/planjson.h"
#include "plan/planvalidator.h"
#include "store/records.h"
#include "store/secretstore.h"
#include "store/sessionsecrets.h"
#include "template/templatevalues.h"

#include <QJsonArray>

namespace ClusterDeck {

namespace {

QJsonObject mapToJson(const QMap<QString, QString> &map)
{
    QJsonObject o;
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QStringList listFromJson(const QJsonValue &v)
{
    QStringList list;
    for (const QJsonValue &item : v.toArray())
        list.append(item.toString());
    return list;
}

// The environment every kernel has alike (BACKEND_CLUSTER_HOSTS and the like: each lists every
// kernel). Stored once beside the kernels instead of in each of them, the spec grows linearly
// with the kernels rather than with their square (33 MB at 1,000 kernels, before).
QMap<QString, QString> commonEnv(const QList<KernelSpec> &kernels)
{
    if (kernels.isEmpty())
        return {};
    QMap<QString, QString> common = kernels.first().env;
    for (qsizetype i = 1; i < kernels.size() && !common.isEmpty(); ++i) {
        const QMap<QString, QString> &env = kernels.at(i).env;
        for (auto it = common.begin(); it != common.end();) {
            const auto other = env.constFind(it.key());
            // Shared strings (the usual case) compare by their data first.
            const bool same = other != env.cend() &&
                              (other->constData() == it->constData() || *other == it.value());
            it = same ? std::next(it) : common.erase(it);
        }
    }
    return common;
}

// Shared contents (the usual case) compare by their data first.
bool sameFile(const PlannedFile &a, const PlannedFile &b)
{
    return a.path == b.path && a.mode == b.mode && a.owner == b.owner &&
           (a.content.constData() == b.content.constData() || a.content == b.content);
}

// The same for files (/etc/cluster/hosts lists every kernel). Secret files (mode 0600…) stay
// with each kernel: SessionSecrets seals them there, out of the stored spec.
QList<PlannedFile> commonFiles(const QList<KernelSpec> &kernels)
{
    if (kernels.isEmpty())
        return {};
    QList<PlannedFile> common;
    for (const PlannedFile &f : kernels.first().files) {
        if (!f.isSecret())
            common.append(f);
    }
    for (qsizetype i = 1; i < kernels.size() && !common.isEmpty(); ++i) {
        const QList<PlannedFile> &files = kernels.at(i).files;
        common.removeIf([&](const PlannedFile &c) {
            return std::none_of(files.cbegin(), files.cend(),
                                [&](const PlannedFile &f) { return sameFile(f, c); });
        });
    }
    return common;
}

} // namespace

QJsonObject SessionSpec::toJson() const
{
    const QMap<QString, QString> common = commonEnv(plan.kernels);
    const QList<PlannedFile> sharedFiles = commonFiles(plan.kernels);
    QJsonArray kernels;
    for (const KernelSpec &k : plan.kernels) {
        KernelSpec own = k;
        for (auto it = common.cbegin(); it != common.cend(); ++it)
            own.env.remove(it.key());
        // A shared file keeps its place among the kernel's files as {"common": index}.
        QList<qsizetype> sharedAt(k.files.size(), -1);
        for (qsizetype i = 0; i < k.files.size(); ++i) {
            for (qsizetype j = 0; j < sharedFiles.size(); ++j) {
                if (sameFile(k.files.at(i), sharedFiles.at(j))) {
                    sharedAt[i] = j;
                    own.files[i] = PlannedFile{}; // not encoded again
                    break;
                }
            }
        }
        QJsonObject o = PlanJson::toJson(own, PlanJson::Files::Stored);
        if (!sharedFiles.isEmpty()) {
            QJsonArray files = o.value(QStringLiteral("files")).toArray();
            for (qsizetype i = 0; i < sharedAt.size() && i < files.size(); ++i) {
                if (sharedAt.at(i) >= 0)
                    files[i] = QJsonObject{{QStringLiteral("common"), int(sharedAt.at(i))}};
            }
            o.insert(QStringLiteral("files"), files);
        }
        o.insert(QStringLiteral("host"), placement.hostOf.value(k.hostname));
        if (const auto slot = placement.addressSlots.constFind(k.hostname);
            slot != placement.addressSlots.cend())
            o.insert(QStringLiteral("address_slot"), *slot);
        kernels.append(o);
    }
    QJsonObject o = PlanJson::headerToJson(plan);
    o.insert(QStringLiteral("mode"), modeName(placement.mode));
    o.insert(QStringLiteral("network_host"), placement.networkHost);
    o.insert(QStringLiteral("hosts_used"), QJsonArray::fromStringList(placement.hostsUsed));
    if (placement.mode == ClusterMode::MultiNode)
        o.insert(QStringLiteral("network_driver"), networkDriverName(placement.driver));
    if (!placement.gatewaySlots.isEmpty()) {
        QJsonObject slots;
        for (auto it = placement.gatewaySlots.cbegin(); it != placement.gatewaySlots.cend(); ++it)
            slots.insert(it.key(), it.value());
        o.insert(QStringLiteral("gateway_slots"), slots);
    }
    o.insert(QStringLiteral("kernels"), kernels);
    if (!common.isEmpty())
        o.insert(QStringLiteral("common_env"), mapToJson(common));
    if (!sharedFiles.isEmpty())
        o.insert(QStringLiteral("common_files"),
                 PlanJson::filesToJson(sharedFiles, PlanJson::Files::Stored));
    return o;
}

Result<SessionSpec> SessionSpec::fromJson(const QJsonObject &o, const QString &where)
{
    SessionSpec spec;
    ClusterPlan &plan = spec.plan;
    plan = PlanJson::headerFromJson(o);
    if (plan.sessionId.isEmpty())
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("the stored session spec is missing"));
    // Placement decided single or multi node; the stored mode is its choice, never auto.
    spec.placement.mode =
        plan.mode == ClusterMode::SingleNode ? ClusterMode::SingleNode : ClusterMode::MultiNode;
    plan.mode = spec.placement.mode;
    spec.placement.networkHost = o.value(QStringLiteral("network_host")).toString();
    spec.placement.hostsUsed = listFromJson(o.value(QStringLiteral("hosts_used")));
    // Specs stored before drivers existed: multi-node ones ran on a Swarm overlay.
    if (const QJsonValue driver = o.value(QStringLiteral("network_driver")); driver.isString()) {
        const auto parsed = parseNetworkDriver(driver.toString());
        if (!parsed)
            return fail(Error::Kind::Decode, where,
                        QStringLiteral("unknown network driver '%1' in the stored session spec")
                            .arg(driver.toString()));
        spec.placement.driver = *parsed;
    }
    const QJsonObject gatewaySlots = o.value(QStringLiteral("gateway_slots")).toObject();
    for (auto it = gatewaySlots.begin(); it != gatewaySlots.end(); ++it)
        spec.placement.gatewaySlots.insert(it.key(), it.value().toInt());
    // Specs stored before common_env carry every variable in every kernel.
    QMap<QString, QString> common;
    const QJsonObject commonEnv = o.value(QStringLiteral("common_env")).toObject();
    for (auto it = commonEnv.begin(); it != commonEnv.end(); ++it)
        common.insert(it.key(), it.value().toString());
    const QList<PlannedFile> sharedFiles =
        PlanJson::filesFromJson(o.value(QStringLiteral("common_files")).toArray());
    for (const QJsonValue &v : o.value(QStringLiteral("kernels")).toArray()) {
        KernelSpec k = PlanJson::kernelFromJson(v.toObject());
        for (auto it = common.cbegin(); it != common.cend(); ++it)
            k.env.insert(it.key(), it.value());
        const QJsonArray files = v.toObject().value(QStringLiteral("files")).toArray();
        for (qsizetype i = 0; i < files.size() && i < k.files.size(); ++i) {
            const QJsonValue ref = files.at(i).toObject().value(QStringLiteral("common"));
            if (!ref.isUndefined())
                k.files[i] = sharedFiles.value(ref.toInt());
        }
        spec.placement.hostOf.insert(k.hostname,
                                     v.toObject().value(QStringLiteral("host")).toString());
        if (const QJsonValue slot = v.toObject().value(QStringLiteral("address_slot"));
            slot.isDouble())
            spec.placement.addressSlots.insert(k.hostname, slot.toInt());
        plan.kernels.append(k);
    }
    if (plan.kernels.isEmpty())
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("the stored session spec has no kernels"));
    // Specs stored before these keys were written: their names follow from the session.
    if (plan.networkName.isEmpty())
        plan.networkName = QStringLiteral("cd-") + plan.sessionId.left(8);
    const QString project = ComposeLabels::projectName(plan.sessionName, plan.sessionId);
    for (KernelSpec &k : plan.kernels) {
        if (k.containerName.isEmpty())
            k.containerName = Labels::containerName(plan.sessionId, k.hostname);
        // Specs stored before the compose labels: a kernel made anew from one gets them too.
        if (!k.labels.contains(Labels::composeProject()))
            ComposeLabels::apply(k, project);
    }
    // Held to a template's rules: whoever can write the store must not be able to make the
    // controller mount the host (or anything else a template may not do) on its next restart.
    if (auto ok = PlanValidator::validate(plan, where); !ok)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("the stored session spec breaks a template rule: %1")
                        .arg(ok.error().message));
    return spec;
}

Result<SessionSpec> SessionSpec::fromRecord(const SessionRecord &session, const SecretStore &store)
{
    QJsonObject json = session.launch.spec;
    std::optional<Error> unavailable;
    const QJsonObject &sealed = session.launch.secrets;
    if (!sealed.isEmpty()) {
        auto values = store.openSecrets(session.id, sealed);
        if (!values) {
            unavailable = values.error();
        } else if (const QStringList lost = SessionSecrets::restore(json, *values);
                   !lost.isEmpty()) {
            unavailable = Error::make(
                Error::Kind::Decode, QStringLiteral("session %1").arg(session.id),
                QStringLiteral("the stored secrets lack %1").arg(lost.join(QStringLiteral(", "))));
        }
    }
    auto spec = SessionSpec::fromJson(json, QStringLiteral("session %1").arg(session.id));
    if (spec)
        spec->secretsUnavailable = unavailable;
    return spec;
}

Result<void> SessionSpec::storeInto(SecretStore &store, LaunchRecord &launch) const
{
    if (secretsUnavailable)
        return fail(*secretsUnavailable);
    QJsonObject json = toJson();
    const QMap<QString, QByteArray> values = SessionSecrets::extract(json);
    QJsonObject sealed;
    if (!values.isEmpty()) {
        auto made = store.sealSecrets(plan.sessionId, values);
        if (!made)
            return fail(made.error());
        sealed = *made;
    }
    launch.spec = json;
    launch.secrets = sealed;
    return {};
}

} // namespace ClusterDeck
