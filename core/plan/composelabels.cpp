#include "composelabels.h"

#include "common/labels.h"
#include "planjson.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>

namespace ClusterDeck::ComposeLabels {

namespace {

bool isProjectChar(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9') || c == u'-' || c == u'_';
}

} // namespace

bool isValidProjectName(const QString &name)
{
    if (name.isEmpty() || name.front() == u'-' || name.front() == u'_')
        return false;
    return std::all_of(name.cbegin(), name.cend(), isProjectChar);
}

QString projectName(const QString &sessionName, const QString &sessionId)
{
    if (isValidProjectName(sessionName))
        return sessionName;
    QString out;
    bool replaced = false; // the last character written stands for a run of others
    for (const QChar c : sessionName) {
        const QChar lower = (c >= u'A' && c <= u'Z') ? c.toLower() : c;
        if (isProjectChar(lower)) {
            out.append(lower);
            replaced = false;
        } else if (!replaced) {
            out.append(u'-');
            replaced = true;
        }
    }
    if (replaced)
        out.chop(1);
    while (!out.isEmpty() && (out.front() == u'-' || out.front() == u'_'))
        out.remove(0, 1);
    return out.isEmpty() ? QStringLiteral("cd-") + sessionId.left(8) : out;
}

void apply(KernelSpec &kernel, const QString &project)
{
    // What compose would call the service's configuration: the same for every kernel of a role
    // made from one template, whatever its identity, env or membership files.
    // Only these parts are encoded: a kernel's env and membership files grow with the session,
    // and encoding them for every kernel made a large launch quadratic.
    const QJsonObject config{
        {QStringLiteral("command"), QJsonArray::fromStringList(kernel.command)},
        {QStringLiteral("entrypoint"), QJsonArray::fromStringList(kernel.entrypoint)},
        {QStringLiteral("image"), kernel.image},
        {QStringLiteral("mounts"), PlanJson::mountsToJson(kernel.mounts)},
        {QStringLiteral("ports"), PlanJson::portsToJson(kernel.ports)},
        {QStringLiteral("resources"), PlanJson::resourcesToJson(kernel.resources)},
        {QStringLiteral("user"), kernel.user},
        {QStringLiteral("working_dir"), kernel.workingDir}};
    const QByteArray hash =
        QCryptographicHash::hash(QJsonDocument(config).toJson(QJsonDocument::Compact),
                                 QCryptographicHash::Sha256)
            .toHex();

    kernel.labels.insert(Labels::composeProject(), project);
    kernel.labels.insert(Labels::composeService(), kernel.role);
    kernel.labels.insert(Labels::composeContainerNumber(), QString::number(kernel.roleIdx));
    kernel.labels.insert(Labels::composeConfigHash(), QString::fromLatin1(hash));
    kernel.labels.insert(Labels::composeOneoff(), QStringLiteral("False"));
    kernel.labels.insert(Labels::composeConfigFiles(), QString());
}

} // namespace ClusterDeck::ComposeLabels
