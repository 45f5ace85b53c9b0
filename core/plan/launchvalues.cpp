#include "launchvalues.h"

#include "launchoptions.h"
#include "template/templatevalues.h"

namespace ClusterDeck::LaunchValues {

Result<std::pair<QString, int>> parseRoleCount(const QString &text)
{
    const qsizetype eq = text.indexOf(QLatin1Char('='));
    const QString role = eq > 0 ? text.left(eq) : QString();
    bool ok = false;
    const int n = eq > 0 ? text.mid(eq + 1).toInt(&ok) : 0;
    if (role.isEmpty() || !ok || n < 0)
        return fail(Error::Kind::Invalid, QString(),
                    QStringLiteral("'%1' is not ROLE=N (e.g. worker=6)").arg(text));
    if (const QString why = TemplateValues::checkRoleName(role); !why.isEmpty())
        return fail(Error::Kind::Invalid, QString(),
                    QStringLiteral("'%1' is not ROLE=N: %2").arg(text, why));
    return std::pair{role, n};
}

Result<std::pair<QString, QString>> parseEnv(const QString &text)
{
    const auto kv = TemplateValues::parseEnvAssignment(text);
    if (!kv)
        return fail(Error::Kind::Invalid, QString(),
                    QStringLiteral("'%1' is not K=V (K: letters, digits and _, not starting with "
                                   "a digit)")
                        .arg(text));
    return *kv;
}

Result<Mount> parseMount(const QString &text)
{
    QString why;
    const auto m = TemplateValues::parseMountSpec(text, &why);
    if (!m)
        return fail(Error::Kind::Invalid, QString(), QStringLiteral("'%1': %2").arg(text, why));
    return *m;
}

Result<QMap<QString, int>> parseRoleCounts(const QStringList &words)
{
    QMap<QString, int> counts;
    for (const QString &word : words) {
        auto rc = parseRoleCount(word);
        if (!rc)
            return fail(rc.error());
        if (counts.contains(rc->first))
            return fail(Error::Kind::Invalid, QString(),
                        QStringLiteral("role %1 is given twice").arg(rc->first));
        counts.insert(rc->first, rc->second);
    }
    return counts;
}

Result<void> apply(LaunchOptions &options, const QStringList &counts, const QStringList &env,
                   const QStringList &mounts)
{
    auto parsedCounts = parseRoleCounts(counts);
    if (!parsedCounts)
        return fail(parsedCounts.error().withContext(QStringLiteral("--count")));
    for (auto it = parsedCounts->cbegin(); it != parsedCounts->cend(); ++it)
        options.counts.insert(it.key(), it.value());
    for (const QString &value : env) {
        auto kv = parseEnv(value);
        if (!kv)
            return fail(kv.error().withContext(QStringLiteral("--env")));
        options.env.insert(kv->first, kv->second);
    }
    for (const QString &value : mounts) {
        auto m = parseMount(value);
        if (!m)
            return fail(m.error().withContext(QStringLiteral("--mount")));
        options.mounts.append(*m);
    }
    return {};
}

} // namespace ClusterDeck::LaunchValues
