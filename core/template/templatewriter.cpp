#include "templatewriter.h"

#include "common/logging.h"
#include "templatevalues.h"

#include <QSaveFile>

#include <yaml-cpp/yaml.h>

namespace ClusterDeck {

namespace {

using namespace TemplateValues;

std::string s(const QString &value)
{
    return value.toStdString();
}

void writeMap(YAML::Emitter &out, const char *key, const QMap<QString, QString> &map)
{
    if (map.isEmpty())
        return;
    out << YAML::Key << key << YAML::Value << YAML::BeginMap;
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        out << YAML::Key << s(it.key()) << YAML::Value << YAML::DoubleQuoted << s(it.value());
    out << YAML::EndMap;
}

void writeList(YAML::Emitter &out, const char *key, const QStringList &list)
{
    if (list.isEmpty())
        return;
    out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const QString &item : list)
        out << s(item);
    out << YAML::EndSeq;
}

// A literal block (`|`) keeps a script readable. With "clip" chomping the block's own line break
// supplies the final newline, so it expresses exactly one; leading blanks and tabs would need
// indentation indicators the samples never use.
bool fitsLiteralBlock(const QString &text)
{
    return text.endsWith(QLatin1Char('\n')) && !text.endsWith(QStringLiteral("\n\n")) &&
           !text.startsWith(QLatin1Char(' ')) && !text.contains(QLatin1Char('\t')) &&
           !text.contains(QLatin1Char('\r'));
}

// `command: |` as in the samples when the command line is a multi-line shell script (the loader
// reads a single string as `/bin/sh -c STRING`); otherwise the argument list.
void writeCommandLine(YAML::Emitter &out, const char *key, const QStringList &list)
{
    const bool script = list.size() == 3 && list.at(0) == QLatin1String("/bin/sh") &&
                        list.at(1) == QLatin1String("-c") &&
                        list.at(2).chopped(1).contains(QLatin1Char('\n')) &&
                        fitsLiteralBlock(list.at(2));
    if (!script) {
        writeList(out, key, list);
        return;
    }
    out << YAML::Key << key << YAML::Value << YAML::Literal << s(list.at(2).chopped(1));
}

void writeResources(YAML::Emitter &out, const Resources &r)
{
    if (r.isEmpty())
        return;
    out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
    if (r.cpus)
        out << YAML::Key << "cpus" << YAML::Value << s(formatCpus(*r.cpus));
    if (r.memoryBytes)
        out << YAML::Key << "memory" << YAML::Value << s(formatMemory(*r.memoryBytes));
    if (r.gpus)
        out << YAML::Key << "gpus" << YAML::Value << *r.gpus;
    out << YAML::EndMap;
}

void writePorts(YAML::Emitter &out, const QList<ServicePort> &ports)
{
    if (ports.isEmpty())
        return;
    out << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq;
    for (const ServicePort &p : ports)
        out << s(p.toString());
    out << YAML::EndSeq;
}

void writeMounts(YAML::Emitter &out, const QList<Mount> &mounts)
{
    if (mounts.isEmpty())
        return;
    out << YAML::Key << "mounts" << YAML::Value << YAML::BeginSeq;
    for (const Mount &m : mounts) {
        // The short `SRC:DST[:ro]` form when it says everything.
        const QString shortForm = m.source + QLatin1Char(':') + m.target +
                                  (m.readOnly ? QStringLiteral(":ro") : QString());
        if (parseMountSpec(shortForm) == std::optional<Mount>(m)) {
            out << s(shortForm);
            continue;
        }
        out << YAML::BeginMap;
        out << YAML::Key << "type" << YAML::Value << s(mountTypeName(m.type));
        out << YAML::Key << "source" << YAML::Value << s(m.source);
        out << YAML::Key << "target" << YAML::Value << s(m.target);
        if (m.readOnly)
            out << YAML::Key << "readOnly" << YAML::Value << true;
        if (!m.driver.isEmpty())
            out << YAML::Key << "driver" << YAML::Value << s(m.driver);
        writeMap(out, "driverOptions", m.driverOptions);
        out << YAML::EndMap;
    }
    out << YAML::EndSeq;
}

void writeScalar(YAML::Emitter &out, const char *key, const QString &value)
{
    if (!value.isEmpty())
        out << YAML::Key << key << YAML::Value << s(value);
}

void writeTaskFields(YAML::Emitter &out, const TaskTemplate &task)
{
    writeScalar(out, "image", task.image);
    if (task.pullPolicy)
        writeScalar(out, "pullPolicy", TemplateValues::pullPolicyName(*task.pullPolicy));
    writeCommandLine(out, "entrypoint", task.entrypoint);
    writeCommandLine(out, "command", task.command);
    writeScalar(out, "workingDir", task.workingDir);
    writeScalar(out, "onScale", task.onScale);
    writeScalar(out, "user", task.user);
    writeScalar(out, "bindAddress", task.bindAddress);
    writeMap(out, "env", task.env);
    writeResources(out, task.resources);
    writeMounts(out, task.mounts);
    if (!task.bootstrap.isEmpty()) {
        out << YAML::Key << "bootstrap" << YAML::Value;
        if (fitsLiteralBlock(task.bootstrap))
            out << YAML::Literal << s(task.bootstrap.chopped(1));
        else
            out << YAML::DoubleQuoted << s(task.bootstrap);
    }
    writePorts(out, task.ports);
    writeMap(out, "labels", task.labels);
}

QByteArray finish(const YAML::Emitter &out)
{
    QByteArray data(out.c_str(), qsizetype(out.size()));
    if (!data.endsWith('\n'))
        data.append('\n');
    return data;
}

Result<void> writeFile(const QString &path, const QByteArray &data)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.commit())
        return fail(Error::Kind::Io, path, file.errorString());
    qCDebug(lcTemplate) << "saved" << path;
    return {};
}

} // namespace

QByteArray TemplateWriter::toYaml(const ClusterTemplate &t)
{
    YAML::Emitter out;
    out.SetIndent(2);
    out << YAML::BeginMap;
    out << YAML::Key << "apiVersion" << YAML::Value << kTemplateApiVersion;
    out << YAML::Key << "kind" << YAML::Value << "Cluster";
    out << YAML::Key << "name" << YAML::Value << s(t.name);
    writeScalar(out, "description", t.description);
    out << YAML::Key << "mode" << YAML::Value << s(modeName(t.mode));
    if (t.mtu) {
        out << YAML::Key << "network" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "mtu" << YAML::Value << *t.mtu;
        out << YAML::EndMap;
    }
    out << YAML::Key << "failurePolicy" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "action" << YAML::Value << s(failureActionName(t.failurePolicy.action));
    if (t.failurePolicy.action == FailurePolicy::Action::RestartSession)
        out << YAML::Key << "maxRestarts" << YAML::Value << t.failurePolicy.maxRestarts;
    out << YAML::EndMap;
    switch (t.successPolicy.kind) {
    case SuccessPolicy::Kind::None:
        break;
    case SuccessPolicy::Kind::PrimaryExits:
    case SuccessPolicy::Kind::AllExit:
        out << YAML::Key << "successPolicy" << YAML::Value
            << s(successKindName(t.successPolicy.kind));
        break;
    case SuccessPolicy::Kind::RoleExits:
        out << YAML::Key << "successPolicy" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "role-exits" << YAML::Value << s(t.successPolicy.role);
        out << YAML::EndMap;
        break;
    }
    if (t.ttlAfterFinishedSeconds)
        out << YAML::Key << "ttlAfterFinished" << YAML::Value
            << s(formatDuration(*t.ttlAfterFinishedSeconds));
    out << YAML::Key << "startupOrder" << YAML::Value << s(startupOrderName(t.startupOrder));
    writeList(out, "presets", t.presets);
    writeMap(out, "env", t.env);
    writeMounts(out, t.mounts);
    if (t.allowHostPaths)
        out << YAML::Key << "allowHostPaths" << YAML::Value << true;

    out << YAML::Key << "roles" << YAML::Value << YAML::BeginSeq;
    for (const RoleTemplate &role : t.roles) {
        out << YAML::BeginMap;
        out << YAML::Key << "name" << YAML::Value << s(role.name);
        out << YAML::Key << "count" << YAML::Value << role.count;
        out << YAML::Key << "min" << YAML::Value << role.min;
        out << YAML::Key << "max" << YAML::Value << role.max;
        out << YAML::Key << "task" << YAML::Value;
        if (!role.taskFile.isEmpty()) {
            out << s(role.taskFile);
        } else {
            out << YAML::BeginMap;
            writeTaskFields(out, role.task);
            out << YAML::EndMap;
        }
        if (!role.overrides.isEmpty()) {
            out << YAML::Key << "overrides" << YAML::Value << YAML::BeginMap;
            writeMap(out, "env", role.overrides.env);
            writePorts(out, role.overrides.ports);
            writeResources(out, role.overrides.resources);
            out << YAML::EndMap;
        }
        writeMap(out, "hostLabels", role.hostLabels);
        out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    out << YAML::EndMap;
    return finish(out);
}

QByteArray TemplateWriter::toYaml(const TaskTemplate &task)
{
    YAML::Emitter out;
    out.SetIndent(2);
    out << YAML::BeginMap;
    out << YAML::Key << "apiVersion" << YAML::Value << kTemplateApiVersion;
    out << YAML::Key << "kind" << YAML::Value << "Task";
    writeTaskFields(out, task);
    out << YAML::EndMap;
    return finish(out);
}

Result<void> TemplateWriter::save(const ClusterTemplate &t, const QString &path)
{
    return writeFile(path, toYaml(t));
}

Result<void> TemplateWriter::save(const TaskTemplate &task, const QString &path)
{
    return writeFile(path, toYaml(task));
}

Result<void> TemplateWriter::saveYaml(const QByteArray &yaml, const QString &path)
{
    return writeFile(path, yaml);
}

} // namespace ClusterDeck
