#pragma once

#include <QHash>
#include <QString>

#include <mutex>
#include <utility>

namespace ClusterDeck {

// "KEY=value" entries of container env. A plan's session-wide values (BACKEND_CLUSTER_HOSTS and
// each role's list: about 11 bytes per kernel of the session) are one shared string in every
// kernel; joined once per launch and shared by every container spec instead of once per kernel,
// 10,000 kernels no longer allocate and fill gigabytes of identical strings.
class EnvStrings
{
public:
    QString joined(const QString &key, const QString &value)
    {
        if (value.size() < kShareFrom)
            return key + QLatin1Char('=') + value;
        std::lock_guard lock(m_mutex);
        // By the value's data: the entry keeps it alive, so its address names its content.
        const auto id = std::pair(key, value.constData());
        if (const auto it = m_joined.constFind(id);
            it != m_joined.cend() && it->value.size() == value.size())
            return it->joined;
        const Entry e{value, key + QLatin1Char('=') + value};
        m_joined.insert(id, e);
        return e.joined;
    }

private:
    static constexpr qsizetype kShareFrom = 1024;
    struct Entry
    {
        QString value;
        QString joined;
    };
    std::mutex m_mutex;
    QHash<std::pair<QString, const QChar *>, Entry> m_joined;
};

} // namespace ClusterDeck
