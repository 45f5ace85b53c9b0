#pragma once

// Records for session-tree tests and benchmarks: a session with roles and counts, kernels
// spread round-robin over hosts, ranks in template order.

#include "store/records.h"

#include <QHash>
#include <QList>
#include <QPair>
#include <QStringList>

namespace ClusterDeck::Fixtures {

struct SessionFixture
{
    SessionRecord session;
    QList<KernelRecord> kernels;
};

inline SessionFixture makeSession(
    const QString &id, const QString &name, const QList<QPair<QString, int>> &roles,
    const QStringList &hosts = {QStringLiteral("h1"), QStringLiteral("h2"), QStringLiteral("h3")},
    KernelStatus status = KernelStatus::Running,
    const QString &templateName = QStringLiteral("lab-basic"))
{
    SessionFixture f;
    f.session.id = id;
    f.session.name = name;
    f.session.templateName = templateName;
    f.session.mode = ClusterMode::MultiNode;
    f.session.status = SessionStatus::Running;
    f.session.createdAt = QDateTime(QDate(2024, 5, 1), QTime(12, 0), Qt::UTC);
    int rank = 0;
    for (const auto &[role, count] : roles) {
        for (int i = 1; i <= count; ++i, ++rank) {
            KernelRecord k;
            k.id = id + QStringLiteral("-k") + QString::number(rank);
            k.sessionId = id;
            k.role = role;
            k.roleIdx = i;
            k.localRank = rank;
            k.primary = rank == 0;
            k.hostname = role + QString::number(i);
            k.host = hosts.isEmpty() ? QString() : hosts.at(rank % hosts.size());
            k.containerName = QStringLiteral("cd-%1-%2").arg(id.left(8), k.hostname);
            k.containerId = QStringLiteral("%1").arg(rank, 4, 10, QLatin1Char(u'0')).repeated(16);
            k.status = status;
            k.createdAt = f.session.createdAt;
            if (rank == 0) {
                k.ports.append(PortBinding{QStringLiteral("web"), QStringLiteral("http"), 8080,
                                           49153, QStringLiteral("http://10.0.0.1:49153")});
                k.ports.append(PortBinding{QStringLiteral("ssh"), QStringLiteral("tcp"), 2200,
                                           49154, QString()});
                k.ports.append(PortBinding{QStringLiteral("unbound"), QStringLiteral("tcp"), 9000,
                                           0, QString()});
            }
            f.kernels.append(k);
        }
    }
    return f;
}

// n sessions of `perSession` kernels (one master, the rest workers).
inline void makeMany(int n, int perSession, QList<SessionRecord> &sessions,
                     QHash<QString, QList<KernelRecord>> &kernels)
{
    sessions.reserve(n);
    kernels.reserve(n);
    for (int i = 0; i < n; ++i) {
        const QString id =
            QStringLiteral("%1-0000-4000-8000-000000000000").arg(i, 8, 16, QLatin1Char('0'));
        SessionFixture f = makeSession(
            id, QStringLiteral("session-%1").arg(i),
            {{QStringLiteral("master"), 1}, {QStringLiteral("worker"), perSession - 1}},
            {QStringLiteral("h%1").arg(i % 7 + 1), QStringLiteral("h%1").arg(i % 5 + 8)},
            KernelStatus::Running, i % 3 == 0 ? QStringLiteral("mpi") : QStringLiteral("lab"));
        sessions.append(f.session);
        kernels.insert(id, f.kernels);
    }
}

} // namespace ClusterDeck::Fixtures
