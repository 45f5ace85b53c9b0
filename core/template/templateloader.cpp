#include "templateloader.h"

#include "common/logging.h"
#include "templatevalues.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QSet>

#include <yaml-cpp/yaml.h>

#include <memory>

namespace ClusterDeck {

namespace {

using namespace TemplateValues;

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

QString join(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + QLatin1Char('.') + key;
}

QString indexed(const QString &path, std::size_t i)
{
    return path + QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
}

QString describe(const YAML::Node &node)
{
    switch (node.Type()) {
    case YAML::NodeType::Map:
        return QStringLiteral("a mapping");
    case YAML::NodeType::Sequence:
        return QStringLiteral("a list");
    case YAML::NodeType::Null:
        return QStringLiteral("nothing");
    case YAML::NodeType::Scalar:
        return QStringLiteral("'%1'").arg(qs(node.Scalar()));
    case YAML::NodeType::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

// One parse of one file. Task files referenced from it are parsed by nested Parsers sharing the
// diagnostics list and the stack of files being loaded (for cycle detection).
class Parser
{
public:
    // `hostPaths` collects every mount of a host path with where it is written: the cluster
    // template, once read, decides whether they are errors (allowHostPaths).
    Parser(QString file, QString baseDir, TemplateDiagnostics &diagnostics, QStringList &stack,
           TemplateDiagnostics &hostPaths)
        : m_file(std::move(file))
        , m_baseDir(std::move(baseDir))
        , m_diagnostics(diagnostics)
        , m_stack(stack)
        , m_hostPaths(hostPaths)
    {}

    std::optional<YAML::Node> parseDocument(const QByteArray &data)
    {
        try {
            YAML::Node root = YAML::Load(data.toStdString());
            if (!root.IsMap()) {
                error(root, {},
                      QStringLiteral("expected a mapping of template fields, got %1")
                          .arg(describe(root)));
                return std::nullopt;
            }
            return root;
        } catch (const YAML::Exception &e) {
            addDiagnostic(e.mark, {}, QStringLiteral("YAML syntax error: %1").arg(qs(e.msg)));
            return std::nullopt;
        }
    }

    ClusterTemplate parseCluster(const YAML::Node &root)
    {
        ClusterTemplate t;
        checkKeys(root, {}, TemplateLoader::clusterKeys());
        checkHeader(root, {}, QStringLiteral("Cluster"));

        if (auto name = requiredString(root, {}, QStringLiteral("name")))
            t.name = *name;
        t.description = optionalString(root, {}, QStringLiteral("description"));
        if (const YAML::Node n = root["mode"]; present(n)) {
            if (auto s = scalar(n, QStringLiteral("mode"))) {
                if (auto mode = parseMode(*s))
                    t.mode = *mode;
                else
                    badChoice(n, QStringLiteral("mode"), *s,
                              {QStringLiteral("single-node"), QStringLiteral("multi-node"),
                               QStringLiteral("auto")});
            }
        }
        if (const YAML::Node n = root["network"];
            present(n) && expectMap(n, QStringLiteral("network"))) {
            checkKeys(n, QStringLiteral("network"), {QStringLiteral("mtu")});
            if (const YAML::Node m = n["mtu"]; present(m))
                t.mtu = integer(m, QStringLiteral("network.mtu"), 576, 9216);
        }
        if (const YAML::Node n = root["failurePolicy"]; present(n))
            t.failurePolicy = parseFailurePolicy(n, QStringLiteral("failurePolicy"));
        // The role a role-exits policy names is checked once the roles are known.
        YAML::Node successRoleNode;
        QString successRolePath;
        if (const YAML::Node n = root["successPolicy"]; present(n))
            t.successPolicy = parseSuccessPolicy(n, QStringLiteral("successPolicy"),
                                                 successRoleNode, successRolePath);
        if (const YAML::Node n = root["ttlAfterFinished"]; present(n)) {
            const QString path = QStringLiteral("ttlAfterFinished");
            if (const auto s = scalar(n, path)) {
                const auto seconds = parseDuration(*s);
                if (!seconds)
                    error(n, path,
                          QStringLiteral("expected a duration such as 30s, 10m or 2h, or a whole "
                                         "number of seconds, got '%1'")
                              .arg(*s));
                else if (*seconds > kMaxTtlAfterFinished)
                    error(n, path,
                          QStringLiteral("%1 is longer than %2 (leave ttlAfterFinished out to "
                                         "keep a finished session until it is removed)")
                              .arg(*s, formatDuration(kMaxTtlAfterFinished)));
                else if (t.successPolicy.kind == SuccessPolicy::Kind::None)
                    // Only a success policy makes a session COMPLETED, the one state it counts
                    // from: a TTL without one would silently do nothing.
                    error(n, path,
                          QStringLiteral("ttlAfterFinished applies only with a successPolicy "
                                         "(primary-exits, all-exit or role-exits)"));
                else
                    t.ttlAfterFinishedSeconds = *seconds;
            }
        }
        if (const YAML::Node n = root["startupOrder"]; present(n)) {
            if (auto s = scalar(n, QStringLiteral("startupOrder"))) {
                if (auto order = parseStartupOrder(*s))
                    t.startupOrder = *order;
                else
                    badChoice(n, QStringLiteral("startupOrder"), *s,
                              {QStringLiteral("parallel"), QStringLiteral("in-order")});
            }
        }
        if (const YAML::Node n = root["presets"]; present(n))
            t.presets = parsePresets(n, QStringLiteral("presets"));
        if (const YAML::Node n = root["env"]; present(n))
            t.env = parseEnv(n, QStringLiteral("env"));
        if (const YAML::Node n = root["mounts"]; present(n))
            t.mounts = parseMounts(n, QStringLiteral("mounts"));
        if (const YAML::Node n = root["allowHostPaths"]; present(n))
            t.allowHostPaths = boolean(n, QStringLiteral("allowHostPaths")).value_or(false);

        const YAML::Node roles = root["roles"];
        if (!present(roles)) {
            error(root, QStringLiteral("roles"), QStringLiteral("at least one role is required"));
        } else if (expectSequence(roles, QStringLiteral("roles"))) {
            if (roles.size() == 0)
                error(roles, QStringLiteral("roles"),
                      QStringLiteral("at least one role is required"));
            QHash<QString, int> seen; // role name -> line of first definition
            for (std::size_t i = 0; i < roles.size(); ++i) {
                const QString path = indexed(QStringLiteral("roles"), i);
                const YAML::Node r = roles[i];
                if (!expectMap(r, path))
                    continue;
                RoleTemplate role = parseRole(r, path);
                if (!role.name.isEmpty()) {
                    if (seen.contains(role.name))
                        error(r["name"], join(path, QStringLiteral("name")),
                              QStringLiteral("duplicate role name '%1' (first defined on line %2)")
                                  .arg(role.name)
                                  .arg(seen.value(role.name)));
                    else
                        seen.insert(role.name, r["name"].Mark().line + 1);
                }
                t.roles.append(role);
            }
        }
        if (t.successPolicy.kind == SuccessPolicy::Kind::RoleExits &&
            !t.successPolicy.role.isEmpty() && !t.roles.isEmpty() &&
            !t.role(t.successPolicy.role)) {
            QStringList names;
            for (const RoleTemplate &r : std::as_const(t.roles)) {
                if (!r.name.isEmpty())
                    names.append(r.name);
            }
            QString msg = QStringLiteral("role '%1' is not one of the template's roles: %2")
                              .arg(t.successPolicy.role, names.join(QStringLiteral(", ")));
            const QString suggestion = closestMatch(t.successPolicy.role, names);
            if (!suggestion.isEmpty())
                msg += QStringLiteral(" (did you mean '%1'?)").arg(suggestion);
            error(successRoleNode, successRolePath, msg);
        }
        return t;
    }

    TaskTemplate parseTaskDocument(const YAML::Node &root) { return parseTask(root, {}, false); }

    void reportException(const YAML::Exception &e)
    {
        addDiagnostic(e.mark, {}, QStringLiteral("cannot read the template: %1").arg(qs(e.msg)));
    }

private:
    static bool present(const YAML::Node &n) { return n.IsDefined() && !n.IsNull(); }

    void addDiagnostic(const YAML::Mark &mark, const QString &path, const QString &message)
    {
        TemplateDiagnostic d;
        d.file = m_file;
        if (!mark.is_null()) {
            d.line = mark.line + 1;
            d.column = mark.column + 1;
        }
        d.path = path;
        d.message = message;
        m_diagnostics.append(d);
    }

    void error(const YAML::Node &node, const QString &path, const QString &message)
    {
        addDiagnostic(node.IsDefined() ? node.Mark() : m_lastMark, path, message);
    }

    void badChoice(const YAML::Node &node, const QString &path, const QString &value,
                   const QStringList &choices)
    {
        QString msg =
            QStringLiteral("'%1' is not one of %2").arg(value, choices.join(QStringLiteral(", ")));
        const QString suggestion = closestMatch(value, choices);
        if (!suggestion.isEmpty())
            msg += QStringLiteral(" (did you mean '%1'?)").arg(suggestion);
        error(node, path, msg);
    }

    bool expectMap(const YAML::Node &n, const QString &path)
    {
        if (n.IsMap())
            return true;
        error(n, path, QStringLiteral("expected a mapping, got %1").arg(describe(n)));
        return false;
    }

    bool expectSequence(const YAML::Node &n, const QString &path)
    {
        if (n.IsSequence())
            return true;
        error(n, path, QStringLiteral("expected a list, got %1").arg(describe(n)));
        return false;
    }

    void checkKeys(const YAML::Node &map, const QString &path, const QStringList &allowed)
    {
        m_lastMark = map.Mark();
        QSet<QString> seen;
        for (auto it = map.begin(); it != map.end(); ++it) {
            const QString key = it->first.IsScalar() ? qs(it->first.Scalar()) : QString();
            if (!it->first.IsScalar()) {
                error(it->first, path, QStringLiteral("keys must be plain words"));
                continue;
            }
            if (seen.contains(key)) {
                error(it->first, join(path, key), QStringLiteral("duplicate key '%1'").arg(key));
                continue;
            }
            seen.insert(key);
            if (allowed.contains(key))
                continue;
            QString msg = QStringLiteral("unknown key '%1'").arg(key);
            const QString suggestion = closestMatch(key, allowed);
            if (!suggestion.isEmpty())
                msg += QStringLiteral(" (did you mean '%1'?)").arg(suggestion);
            else
                msg += QStringLiteral(" (expected one of: %1)")
                           .arg(allowed.join(QStringLiteral(", ")));
            error(it->first, join(path, key), msg);
        }
    }

    void checkHeader(const YAML::Node &root, const QString &path, const QString &kind)
    {
        if (const YAML::Node n = root["apiVersion"]; present(n)) {
            if (auto s = scalar(n, join(path, QStringLiteral("apiVersion")));
                s && *s != QLatin1String(kTemplateApiVersion))
                error(n, join(path, QStringLiteral("apiVersion")),
                      QStringLiteral("unsupported apiVersion '%1' (expected %2)")
                          .arg(*s, QLatin1String(kTemplateApiVersion)));
        }
        if (const YAML::Node n = root["kind"]; present(n)) {
            if (auto s = scalar(n, join(path, QStringLiteral("kind"))); s && *s != kind)
                error(n, join(path, QStringLiteral("kind")),
                      QStringLiteral("expected kind %1, got '%2'").arg(kind, *s));
        }
    }

    std::optional<QString> scalar(const YAML::Node &n, const QString &path)
    {
        if (n.IsScalar())
            return qs(n.Scalar());
        if (n.IsNull())
            return QString();
        error(n, path, QStringLiteral("expected a single value, got %1").arg(describe(n)));
        return std::nullopt;
    }

    std::optional<QString> requiredString(const YAML::Node &map, const QString &path,
                                          const QString &key)
    {
        const YAML::Node n = map[key.toStdString()];
        if (!present(n) || (n.IsScalar() && n.Scalar().empty())) {
            error(present(n) ? n : map, join(path, key), QStringLiteral("%1 is required").arg(key));
            return std::nullopt;
        }
        return scalar(n, join(path, key));
    }

    QString optionalString(const YAML::Node &map, const QString &path, const QString &key)
    {
        const YAML::Node n = map[key.toStdString()];
        if (!present(n))
            return {};
        return scalar(n, join(path, key)).value_or(QString());
    }

    std::optional<int> integer(const YAML::Node &n, const QString &path, int min, int max)
    {
        const auto s = scalar(n, path);
        if (!s)
            return std::nullopt;
        bool ok = false;
        const qlonglong v = s->toLongLong(&ok);
        if (!ok) {
            error(n, path, QStringLiteral("expected a whole number, got '%1'").arg(*s));
            return std::nullopt;
        }
        if (v < min || v > max) {
            error(n, path, QStringLiteral("%1 is outside %2-%3").arg(v).arg(min).arg(max));
            return std::nullopt;
        }
        return int(v);
    }

    std::optional<bool> boolean(const YAML::Node &n, const QString &path)
    {
        const auto s = scalar(n, path);
        if (!s)
            return std::nullopt;
        const QString v = s->toLower();
        if (v == QLatin1String("true") || v == QLatin1String("yes") || v == QLatin1String("on"))
            return true;
        if (v == QLatin1String("false") || v == QLatin1String("no") || v == QLatin1String("off"))
            return false;
        error(n, path, QStringLiteral("expected true or false, got '%1'").arg(*s));
        return std::nullopt;
    }

    // `command: "echo hi"` or `command: [sh, -c, "echo hi"]`. A single string is run by /bin/sh -c.
    QStringList commandLine(const YAML::Node &n, const QString &path)
    {
        if (n.IsScalar())
            return {QStringLiteral("/bin/sh"), QStringLiteral("-c"), qs(n.Scalar())};
        QStringList result;
        if (!expectSequence(n, path))
            return result;
        for (std::size_t i = 0; i < n.size(); ++i) {
            if (auto s = scalar(n[i], indexed(path, i)))
                result.append(*s);
        }
        return result;
    }

    QMap<QString, QString> stringMap(const YAML::Node &n, const QString &path, bool envNames)
    {
        QMap<QString, QString> result;
        if (!expectMap(n, path))
            return result;
        for (auto it = n.begin(); it != n.end(); ++it) {
            if (!it->first.IsScalar()) {
                error(it->first, path, QStringLiteral("keys must be plain words"));
                continue;
            }
            const QString key = qs(it->first.Scalar());
            const QString keyPath = join(path, key);
            if (envNames && !isValidEnvName(key)) {
                error(it->first, keyPath,
                      QStringLiteral("'%1' is not a valid variable name ([A-Za-z_][A-Za-z0-9_]*)")
                          .arg(key));
                continue;
            }
            if (key.isEmpty()) {
                error(it->first, keyPath, QStringLiteral("keys must not be empty"));
                continue;
            }
            if (result.contains(key)) {
                error(it->first, keyPath, QStringLiteral("duplicate key '%1'").arg(key));
                continue;
            }
            if (auto value = scalar(it->second, keyPath))
                result.insert(key, *value);
        }
        return result;
    }

    QMap<QString, QString> parseEnv(const YAML::Node &n, const QString &path)
    {
        return stringMap(n, path, true);
    }

    QStringList parsePresets(const YAML::Node &n, const QString &path)
    {
        QStringList presets;
        if (!expectSequence(n, path))
            return presets;
        for (std::size_t i = 0; i < n.size(); ++i) {
            const QString itemPath = indexed(path, i);
            const auto s = scalar(n[i], itemPath);
            if (!s)
                continue;
            if (!knownPresets().contains(*s))
                badChoice(n[i], itemPath, *s, knownPresets());
            else if (presets.contains(*s))
                error(n[i], itemPath, QStringLiteral("preset '%1' is listed twice").arg(*s));
            else
                presets.append(*s);
        }
        return presets;
    }

    FailurePolicy parseFailurePolicy(const YAML::Node &n, const QString &path)
    {
        FailurePolicy policy;
        const QStringList actions{QStringLiteral("terminate-session"),
                                  QStringLiteral("restart-session"), QStringLiteral("ignore")};
        YAML::Node actionNode = n;
        if (n.IsMap()) {
            checkKeys(n, path, {QStringLiteral("action"), QStringLiteral("maxRestarts")});
            // A missing key yields an invalid node that must not be reset() into: check first.
            const YAML::Node given = n["action"];
            if (!present(given)) {
                error(n, join(path, QStringLiteral("action")),
                      QStringLiteral("action is required (one of %1)")
                          .arg(actions.join(QStringLiteral(", "))));
                return policy;
            }
            actionNode.reset(given);
        }
        const QString actionPath = n.IsMap() ? join(path, QStringLiteral("action")) : path;
        const auto s = scalar(actionNode, actionPath);
        if (!s)
            return policy;
        const auto action = parseFailureAction(*s);
        if (!action) {
            badChoice(actionNode, actionPath, *s, actions);
            return policy;
        }
        policy.action = *action;
        if (n.IsMap()) {
            if (const YAML::Node m = n["maxRestarts"]; present(m)) {
                const QString mPath = join(path, QStringLiteral("maxRestarts"));
                if (policy.action != FailurePolicy::Action::RestartSession)
                    error(m, mPath, QStringLiteral("maxRestarts applies only to restart-session"));
                else if (auto v = integer(m, mPath, 0, 1000))
                    policy.maxRestarts = *v;
            }
        }
        return policy;
    }

    // `primary-exits`, `all-exit`, `none`; `{role-exits: ROLE}`; or `{kind: KIND, role: ROLE}`.
    // `roleNode`/`rolePath` receive where the role was given, for the check against the roles.
    SuccessPolicy parseSuccessPolicy(const YAML::Node &n, const QString &path, YAML::Node &roleNode,
                                     QString &rolePath)
    {
        SuccessPolicy policy;
        const QStringList kinds{successKindName(SuccessPolicy::Kind::None),
                                successKindName(SuccessPolicy::Kind::PrimaryExits),
                                successKindName(SuccessPolicy::Kind::AllExit),
                                successKindName(SuccessPolicy::Kind::RoleExits)};
        const QString roleExits = successKindName(SuccessPolicy::Kind::RoleExits);
        // Reads the role of a role-exits policy from `node` (a scalar naming a role).
        auto readRole = [&](const YAML::Node &node, const QString &nodePath) {
            const auto s = scalar(node, nodePath);
            if (!s)
                return;
            if (s->isEmpty()) {
                error(node, nodePath, QStringLiteral("role-exits needs the name of a role"));
                return;
            }
            policy.kind = SuccessPolicy::Kind::RoleExits;
            policy.role = *s;
            roleNode.reset(node);
            rolePath = nodePath;
        };

        if (n.IsScalar()) {
            const QString s = qs(n.Scalar());
            const auto kind = parseSuccessKind(s);
            if (!kind)
                badChoice(n, path, s, kinds);
            else if (*kind == SuccessPolicy::Kind::RoleExits)
                error(n, path, QStringLiteral("role-exits needs a role: write {role-exits: ROLE}"));
            else
                policy.kind = *kind;
            return policy;
        }
        if (!n.IsMap()) {
            error(n, path,
                  QStringLiteral("expected one of %1, or {role-exits: ROLE}, got %2")
                      .arg(kinds.mid(0, 3).join(QStringLiteral(", ")), describe(n)));
            return policy;
        }
        checkKeys(n, path, {QStringLiteral("kind"), QStringLiteral("role"), roleExits});
        // A missing key yields an invalid node that must not be reset() into: check first.
        if (const YAML::Node r = n[roleExits.toStdString()]; r.IsDefined()) {
            if (n["kind"].IsDefined() || n["role"].IsDefined()) {
                error(n, path,
                      QStringLiteral("write either {role-exits: ROLE} or {kind: role-exits, "
                                     "role: ROLE}, not both"));
                return policy;
            }
            readRole(r, join(path, roleExits));
            return policy;
        }
        const YAML::Node kindNode = n["kind"];
        if (!present(kindNode)) {
            error(n, join(path, QStringLiteral("kind")),
                  QStringLiteral("kind is required (one of %1)")
                      .arg(kinds.join(QStringLiteral(", "))));
            return policy;
        }
        const QString kindPath = join(path, QStringLiteral("kind"));
        const auto s = scalar(kindNode, kindPath);
        if (!s)
            return policy;
        const auto kind = parseSuccessKind(*s);
        if (!kind) {
            badChoice(kindNode, kindPath, *s, kinds);
            return policy;
        }
        const YAML::Node r = n["role"];
        if (*kind == SuccessPolicy::Kind::RoleExits) {
            if (!present(r))
                error(n, join(path, QStringLiteral("role")),
                      QStringLiteral("role is required with role-exits"));
            else
                readRole(r, join(path, QStringLiteral("role")));
        } else {
            if (r.IsDefined())
                error(r, join(path, QStringLiteral("role")),
                      QStringLiteral("role applies only to role-exits"));
            else
                policy.kind = *kind;
        }
        return policy;
    }

    QList<Mount> parseMounts(const YAML::Node &n, const QString &path)
    {
        QList<Mount> mounts;
        if (!expectSequence(n, path))
            return mounts;
        for (std::size_t i = 0; i < n.size(); ++i) {
            const QString itemPath = indexed(path, i);
            const YAML::Node m = n[i];
            std::optional<Mount> mount;
            if (m.IsScalar()) {
                QString problem;
                mount = parseMountSpec(qs(m.Scalar()), &problem);
                if (!mount)
                    error(m, itemPath, problem);
            } else if (expectMap(m, itemPath)) {
                mount = parseMount(m, itemPath);
            }
            if (!mount)
                continue;
            const bool duplicate = std::any_of(mounts.cbegin(), mounts.cend(), [&](const Mount &o) {
                return o.target == mount->target;
            });
            if (duplicate) {
                error(m, itemPath,
                      QStringLiteral("target '%1' is mounted twice").arg(mount->target));
                continue;
            }
            if (const QString hostPath = hostPathOf(*mount); !hostPath.isEmpty()) {
                TemplateDiagnostic use;
                use.file = m_file;
                use.line = int(m.Mark().line) + 1;
                use.column = int(m.Mark().column) + 1;
                use.path = itemPath;
                use.message = hostPathRefusal(hostPath);
                m_hostPaths.append(use);
            }
            mounts.append(*mount);
        }
        return mounts;
    }

    std::optional<Mount> parseMount(const YAML::Node &m, const QString &path)
    {
        checkKeys(m, path,
                  {QStringLiteral("type"), QStringLiteral("source"), QStringLiteral("target"),
                   QStringLiteral("readOnly"), QStringLiteral("driver"),
                   QStringLiteral("driverOptions")});
        Mount mount;
        bool ok = true;
        if (const YAML::Node t = m["type"]; present(t)) {
            const auto s = scalar(t, join(path, QStringLiteral("type")));
            const auto type = s ? parseMountType(*s) : std::nullopt;
            if (type)
                mount.type = *type;
            else if (s)
                badChoice(t, join(path, QStringLiteral("type")), *s,
                          {QStringLiteral("volume"), QStringLiteral("bind")});
            ok = ok && type.has_value();
        }
        const auto source = requiredString(m, path, QStringLiteral("source"));
        const auto target = requiredString(m, path, QStringLiteral("target"));
        ok = ok && source && target;
        if (source)
            mount.source = *source;
        if (target)
            mount.target = *target;
        if (const YAML::Node r = m["readOnly"]; present(r)) {
            const auto v = boolean(r, join(path, QStringLiteral("readOnly")));
            mount.readOnly = v.value_or(false);
            ok = ok && v.has_value();
        }
        mount.driver = optionalString(m, path, QStringLiteral("driver"));
        if (const YAML::Node d = m["driverOptions"]; present(d))
            mount.driverOptions = stringMap(d, join(path, QStringLiteral("driverOptions")), false);
        if (!ok)
            return std::nullopt;
        if (const QString problem = checkMount(mount); !problem.isEmpty()) {
            error(m, path, problem);
            return std::nullopt;
        }
        return mount;
    }

    QList<ServicePort> parsePorts(const YAML::Node &n, const QString &path)
    {
        QList<ServicePort> ports;
        if (!expectSequence(n, path))
            return ports;
        for (std::size_t i = 0; i < n.size(); ++i) {
            const QString itemPath = indexed(path, i);
            const YAML::Node p = n[i];
            std::optional<ServicePort> port;
            if (p.IsMap()) {
                checkKeys(
                    p, itemPath,
                    {QStringLiteral("name"), QStringLiteral("protocol"), QStringLiteral("port")});
                const auto name = requiredString(p, itemPath, QStringLiteral("name"));
                const auto protocol = requiredString(p, itemPath, QStringLiteral("protocol"));
                const YAML::Node numberNode = p["port"];
                std::optional<int> number;
                if (!present(numberNode))
                    error(p, join(itemPath, QStringLiteral("port")),
                          QStringLiteral("port is required"));
                else
                    number = integer(numberNode, join(itemPath, QStringLiteral("port")), 1, 65535);
                if (name && protocol && number) {
                    port = ServicePort{*name, *protocol, *number};
                    if (const QString problem = checkServicePort(*port); !problem.isEmpty()) {
                        error(p, itemPath, problem);
                        port.reset();
                    }
                }
            } else if (auto s = scalar(p, itemPath)) {
                QString problem;
                port = parseServicePort(*s, &problem);
                if (!port)
                    error(p, itemPath, problem);
            }
            if (!port)
                continue;
            bool duplicate = false;
            for (const ServicePort &other : std::as_const(ports)) {
                if (other.name == port->name) {
                    error(p, itemPath, QStringLiteral("duplicate port name '%1'").arg(port->name));
                    duplicate = true;
                } else if (other.port == port->port) {
                    error(p, itemPath,
                          QStringLiteral("port %1 is already used by '%2'")
                              .arg(port->port)
                              .arg(other.name));
                    duplicate = true;
                }
            }
            if (!duplicate)
                ports.append(*port);
        }
        return ports;
    }

    Resources parseResources(const YAML::Node &n, const QString &path)
    {
        Resources r;
        if (!expectMap(n, path))
            return r;
        checkKeys(n, path,
                  {QStringLiteral("cpus"), QStringLiteral("memory"), QStringLiteral("gpus")});
        if (const YAML::Node c = n["cpus"]; present(c)) {
            const QString cPath = join(path, QStringLiteral("cpus"));
            if (auto s = scalar(c, cPath)) {
                r.cpus = parseCpus(*s);
                if (!r.cpus)
                    error(c, cPath,
                          QStringLiteral(
                              "expected a decimal number of cpus > 0 (e.g. 0.5, 2), got '%1'")
                              .arg(*s));
            }
        }
        if (const YAML::Node m = n["memory"]; present(m)) {
            const QString mPath = join(path, QStringLiteral("memory"));
            if (auto s = scalar(m, mPath)) {
                r.memoryBytes = parseMemory(*s);
                if (!r.memoryBytes)
                    error(m, mPath,
                          QStringLiteral("expected a memory size such as 512m or 4g (at most "
                                         "1024t), got '%1'")
                              .arg(*s));
            }
        }
        if (const YAML::Node g = n["gpus"]; present(g))
            r.gpus = integer(g, join(path, QStringLiteral("gpus")), 0, kMaxGpus);
        return r;
    }

    TaskTemplate parseTask(const YAML::Node &n, const QString &path, bool requireImage)
    {
        TaskTemplate task;
        checkKeys(n, path, TemplateLoader::taskKeys());
        checkHeader(n, path, QStringLiteral("Task"));

        TaskTemplate base;
        if (const YAML::Node e = n["extends"]; present(e)) {
            if (auto ref = scalar(e, join(path, QStringLiteral("extends"))))
                base = loadTaskReference(e, join(path, QStringLiteral("extends")), *ref);
        }

        task.image = optionalString(n, path, QStringLiteral("image"));
        if (const YAML::Node p = n["pullPolicy"]; present(p)) {
            const QString where = join(path, QStringLiteral("pullPolicy"));
            if (auto s = scalar(p, where)) {
                if (auto policy = parsePullPolicy(*s))
                    task.pullPolicy = *policy;
                else
                    badChoice(p, where, *s,
                              {QStringLiteral("if-not-present"), QStringLiteral("always"),
                               QStringLiteral("never")});
            }
        }
        if (const YAML::Node e = n["entrypoint"]; present(e))
            task.entrypoint = commandLine(e, join(path, QStringLiteral("entrypoint")));
        if (const YAML::Node c = n["command"]; present(c))
            task.command = commandLine(c, join(path, QStringLiteral("command")));
        task.workingDir = optionalString(n, path, QStringLiteral("workingDir"));
        if (!task.workingDir.isEmpty() && !task.workingDir.startsWith(QLatin1Char('/')))
            error(n["workingDir"], join(path, QStringLiteral("workingDir")),
                  QStringLiteral("expected an absolute path, got '%1'").arg(task.workingDir));
        task.user = optionalString(n, path, QStringLiteral("user"));
        if (const YAML::Node e = n["env"]; present(e))
            task.env = parseEnv(e, join(path, QStringLiteral("env")));
        if (const YAML::Node r = n["resources"]; present(r))
            task.resources = parseResources(r, join(path, QStringLiteral("resources")));
        if (const YAML::Node m = n["mounts"]; present(m))
            task.mounts = parseMounts(m, join(path, QStringLiteral("mounts")));
        task.bootstrap = optionalString(n, path, QStringLiteral("bootstrap"));
        task.onScale = optionalString(n, path, QStringLiteral("onScale"));
        if (!task.onScale.isEmpty() && !task.onScale.startsWith(QLatin1Char('/')))
            error(n["onScale"], join(path, QStringLiteral("onScale")),
                  QStringLiteral("expected an absolute path in the image, got '%1'")
                      .arg(task.onScale));
        if (const YAML::Node p = n["ports"]; present(p))
            task.ports = parsePorts(p, join(path, QStringLiteral("ports")));
        task.bindAddress = optionalString(n, path, QStringLiteral("bindAddress"));
        if (!task.bindAddress.isEmpty() && !TemplateValues::isIpAddress(task.bindAddress))
            error(n["bindAddress"], join(path, QStringLiteral("bindAddress")),
                  QStringLiteral("expected an IP address (e.g. 0.0.0.0 for every interface, "
                                 "127.0.0.1), got '%1'")
                      .arg(task.bindAddress));
        if (const YAML::Node l = n["labels"]; present(l))
            task.labels = stringMap(l, join(path, QStringLiteral("labels")), false);

        task = mergeTasks(base, task);
        if (requireImage && task.image.isEmpty())
            error(n, join(path, QStringLiteral("image")), QStringLiteral("image is required"));
        return task;
    }

    TaskTemplate loadTaskReference(const YAML::Node &at, const QString &path, const QString &ref)
    {
        if (ref.isEmpty()) {
            error(at, path, QStringLiteral("expected a task template file name"));
            return {};
        }
        const QString display = QDir::cleanPath(QDir(QFileInfo(m_file).path()).filePath(ref));
        const QString fullPath = QDir::cleanPath(QDir(m_baseDir).filePath(ref));
        const QFileInfo info(fullPath);
        if (!info.isFile()) {
            error(at, path, QStringLiteral("task template file '%1' not found").arg(ref));
            return {};
        }
        const QString canonical = info.canonicalFilePath();
        if (m_stack.contains(canonical)) {
            QStringList chain;
            for (const QString &f : m_stack.mid(m_stack.indexOf(canonical)))
                chain.append(QFileInfo(f).fileName());
            chain.append(info.fileName());
            error(at, path,
                  QStringLiteral("task template files form a cycle: %1")
                      .arg(chain.join(QStringLiteral(" -> "))));
            return {};
        }
        QFile file(fullPath);
        if (!file.open(QIODevice::ReadOnly)) {
            error(at, path,
                  QStringLiteral("cannot read task template file '%1': %2")
                      .arg(ref, file.errorString()));
            return {};
        }
        const qsizetype before = m_diagnostics.size();
        m_stack.append(canonical);
        Parser nested(display, info.path(), m_diagnostics, m_stack, m_hostPaths);
        TaskTemplate task;
        if (auto root = nested.parseDocument(file.readAll()))
            task = nested.parseTask(*root, {}, false);
        m_stack.removeLast();
        if (m_diagnostics.size() > before)
            qCDebug(lcTemplate) << "task template" << display << "has"
                                << m_diagnostics.size() - before << "problems";
        return task;
    }

    RoleTemplate parseRole(const YAML::Node &r, const QString &path)
    {
        RoleTemplate role;
        checkKeys(r, path, TemplateLoader::roleKeys());
        const YAML::Node nameNode = r["name"];
        if (auto name = requiredString(r, path, QStringLiteral("name"))) {
            role.name = *name;
            if (const QString problem = checkRoleName(role.name); !problem.isEmpty())
                error(nameNode, join(path, QStringLiteral("name")), problem);
        }

        const QString taskPath = join(path, QStringLiteral("task"));
        const YAML::Node taskNode = r["task"];
        const qsizetype problemsBefore = m_diagnostics.size();
        if (!present(taskNode)) {
            error(r, taskPath,
                  QStringLiteral("task is required (inline fields or a task template file name)"));
        } else if (taskNode.IsScalar()) {
            role.taskFile = qs(taskNode.Scalar());
            role.task = loadTaskReference(taskNode, taskPath, role.taskFile);
        } else if (expectMap(taskNode, taskPath)) {
            role.task = parseTask(taskNode, taskPath, false);
        }
        // Only when the task itself was fine: a missing file already said enough.
        if (m_diagnostics.size() == problemsBefore && present(taskNode) &&
            role.task.image.isEmpty())
            error(taskNode, join(taskPath, QStringLiteral("image")),
                  QStringLiteral("image is required"));

        const int maxInt = 100000;
        std::optional<int> min, max, count;
        const YAML::Node minNode = r["min"], maxNode = r["max"], countNode = r["count"];
        if (present(minNode))
            min = integer(minNode, join(path, QStringLiteral("min")), 1, maxInt);
        if (present(countNode))
            count = integer(countNode, join(path, QStringLiteral("count")), 1, maxInt);
        if (present(maxNode))
            max = integer(maxNode, join(path, QStringLiteral("max")), 1, maxInt);
        const bool numbersOk = (!present(minNode) || min) && (!present(countNode) || count) &&
                               (!present(maxNode) || max);
        role.min = min.value_or(1);
        role.count = count.value_or(role.min);
        role.max = max.value_or(std::max(role.count, role.min));
        if (numbersOk) {
            if (role.max < role.min)
                error(maxNode, join(path, QStringLiteral("max")),
                      QStringLiteral("max (%1) must be >= min (%2)").arg(role.max).arg(role.min));
            else if (role.count < role.min || role.count > role.max)
                error(present(countNode) ? countNode : r, join(path, QStringLiteral("count")),
                      QStringLiteral("count (%1) must be between min (%2) and max (%3)")
                          .arg(role.count)
                          .arg(role.min)
                          .arg(role.max));
        }
        if (!role.name.isEmpty()) {
            const QString longest = hostname(role.name, role.max);
            if (longest.size() > kMaxHostnameLength)
                error(present(maxNode) ? maxNode : nameNode, join(path, QStringLiteral("max")),
                      QStringLiteral(
                          "hostname '%1' of the largest index has %2 characters (at most %3)")
                          .arg(longest)
                          .arg(longest.size())
                          .arg(kMaxHostnameLength));
        }

        if (const YAML::Node o = r["overrides"]; present(o)) {
            const QString oPath = join(path, QStringLiteral("overrides"));
            if (expectMap(o, oPath)) {
                checkKeys(
                    o, oPath,
                    {QStringLiteral("env"), QStringLiteral("ports"), QStringLiteral("resources")});
                if (const YAML::Node e = o["env"]; present(e))
                    role.overrides.env = parseEnv(e, join(oPath, QStringLiteral("env")));
                if (const YAML::Node p = o["ports"]; present(p))
                    role.overrides.ports = parsePorts(p, join(oPath, QStringLiteral("ports")));
                if (const YAML::Node res = o["resources"]; present(res))
                    role.overrides.resources =
                        parseResources(res, join(oPath, QStringLiteral("resources")));
                // The kernel gets task ports with overrides replacing by name: numbers must stay
                // unique.
                const QList<ServicePort> effective =
                    mergePorts(role.task.ports, role.overrides.ports);
                for (qsizetype i = 0; i < effective.size(); ++i) {
                    for (qsizetype j = 0; j < i; ++j) {
                        if (effective.at(i).port == effective.at(j).port)
                            error(o["ports"], join(oPath, QStringLiteral("ports")),
                                  QStringLiteral("port %1 is used by both '%2' and '%3'")
                                      .arg(effective.at(i).port)
                                      .arg(effective.at(j).name, effective.at(i).name));
                    }
                }
            }
        }
        if (const YAML::Node h = r["hostLabels"]; present(h))
            role.hostLabels = stringMap(h, join(path, QStringLiteral("hostLabels")), false);
        return role;
    }

    QString m_file;
    QString m_baseDir;
    TemplateDiagnostics &m_diagnostics;
    QStringList &m_stack;
    TemplateDiagnostics &m_hostPaths;
    YAML::Mark m_lastMark = YAML::Mark::null_mark();
};

std::optional<QByteArray> readFile(const QString &path, TemplateDiagnostics &diagnostics)
{
    QFile file(path);
    if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly)) {
        TemplateDiagnostic d;
        d.file = path;
        d.message = QFileInfo::exists(path)
                        ? QStringLiteral("cannot read: %1").arg(file.errorString())
                        : QStringLiteral("no such file");
        diagnostics.append(d);
        return std::nullopt;
    }
    return file.readAll();
}

} // namespace

QStringList TemplateLoader::clusterKeys()
{
    return {QStringLiteral("apiVersion"),
            QStringLiteral("kind"),
            QStringLiteral("name"),
            QStringLiteral("description"),
            QStringLiteral("mode"),
            QStringLiteral("network"),
            QStringLiteral("failurePolicy"),
            QStringLiteral("successPolicy"),
            QStringLiteral("ttlAfterFinished"),
            QStringLiteral("startupOrder"),
            QStringLiteral("presets"),
            QStringLiteral("env"),
            QStringLiteral("mounts"),
            QStringLiteral("allowHostPaths"),
            QStringLiteral("roles")};
}

QStringList TemplateLoader::roleKeys()
{
    return {QStringLiteral("name"),      QStringLiteral("task"), QStringLiteral("count"),
            QStringLiteral("min"),       QStringLiteral("max"),  QStringLiteral("overrides"),
            QStringLiteral("hostLabels")};
}

QStringList TemplateLoader::taskKeys()
{
    return {
        QStringLiteral("apiVersion"), QStringLiteral("kind"),       QStringLiteral("extends"),
        QStringLiteral("image"),      QStringLiteral("pullPolicy"), QStringLiteral("entrypoint"),
        QStringLiteral("command"),    QStringLiteral("workingDir"), QStringLiteral("user"),
        QStringLiteral("env"),        QStringLiteral("resources"),  QStringLiteral("mounts"),
        QStringLiteral("bootstrap"),  QStringLiteral("ports"),      QStringLiteral("bindAddress"),
        QStringLiteral("labels"),     QStringLiteral("onScale")};
}

template<typename T>
Result<T> TemplateLoader::finish(T value)
{
    if (m_diagnostics.isEmpty())
        return value;
    Error e = m_diagnostics.first().toError();
    if (m_diagnostics.size() > 1)
        e.message += QStringLiteral(" (and %1 more)").arg(m_diagnostics.size() - 1);
    return fail(e);
}

Result<ClusterTemplate> TemplateLoader::loadClusterFile(const QString &path)
{
    m_diagnostics.clear();
    const auto data = readFile(path, m_diagnostics);
    if (!data)
        return fail(m_diagnostics.first().toError());
    return loadClusterFromData(*data, path, QFileInfo(path).path());
}

Result<ClusterTemplate> TemplateLoader::loadClusterFromData(const QByteArray &yaml,
                                                            const QString &fileName,
                                                            const QString &baseDir)
{
    m_diagnostics.clear();
    QStringList stack;
    TemplateDiagnostics hostPaths;
    Parser parser(fileName, baseDir.isEmpty() ? QDir::currentPath() : baseDir, m_diagnostics, stack,
                  hostPaths);
    const auto root = parser.parseDocument(yaml);
    if (!root)
        return finish(ClusterTemplate{});
    ClusterTemplate t;
    try {
        t = parser.parseCluster(*root);
    } catch (const YAML::Exception &e) {
        // Last line of defence (found by fuzzing): no yaml-cpp exception leaves the loader.
        parser.reportException(e);
    }
    if (!t.allowHostPaths)
        m_diagnostics += hostPaths;
    qCDebug(lcTemplate) << "loaded cluster template" << fileName << "with" << m_diagnostics.size()
                        << "problems";
    return finish(std::move(t));
}

Result<TaskTemplate> TemplateLoader::loadTaskFile(const QString &path)
{
    m_diagnostics.clear();
    const auto data = readFile(path, m_diagnostics);
    if (!data)
        return fail(m_diagnostics.first().toError());
    return loadTaskFromData(*data, path, QFileInfo(path).path());
}

Result<TaskTemplate> TemplateLoader::loadTaskFromData(const QByteArray &yaml,
                                                      const QString &fileName,
                                                      const QString &baseDir)
{
    m_diagnostics.clear();
    QStringList stack;
    const QString dir = baseDir.isEmpty() ? QDir::currentPath() : baseDir;
    const QFileInfo self(QDir(dir).filePath(QFileInfo(fileName).fileName()));
    if (self.exists())
        stack.append(self.canonicalFilePath());
    // A task file alone does not decide about host paths: the cluster that uses it does.
    TemplateDiagnostics hostPaths;
    Parser parser(fileName, dir, m_diagnostics, stack, hostPaths);
    const auto root = parser.parseDocument(yaml);
    if (!root)
        return finish(TaskTemplate{});
    try {
        return finish(parser.parseTaskDocument(*root));
    } catch (const YAML::Exception &e) {
        parser.reportException(e);
        return finish(TaskTemplate{});
    }
}

} // namespace ClusterDeck
