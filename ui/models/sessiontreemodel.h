#pragma once

#include "docker/statstypes.h"
#include "stats/usageaggregator.h"
#include "store/records.h"

#include <QAbstractItemModel>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QSet>
#include <QTimer>

#include <memory>
#include <vector>

namespace ClusterDeck::Ui {

// The collapsible session tree: session → role → kernel.
//
// A top-level row is a session seen through its primary kernel (the first kernel of the first
// role); its children are role rows ("worker (12)") whose children are the member kernels.
// Fed from store records; every incremental change (one kernel's status, a new kernel, a removed
// session) touches only the rows concerned, so views keep expansion and selection. Lookups by
// session id and kernel id are O(1).
class SessionTreeModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,      // session name / "worker (12)" / kernel hostname
        StatusColumn,    // aggregated status with a coloured icon
        TemplateColumn,  // session: template; role: role name; kernel: "worker 7"
        KernelsColumn,   // "14 kernels: master×2, worker×12"
        HostsColumn,     // hosts used (session, role) / host (kernel)
        ContainerColumn, // short container id (primary's for a session)
        AgeColumn,
        PortsColumn,  // service ports (primary's for a session)
        CpuColumn,    // live CPU % (kernel: with a 60 s sparkline; role, session: sums)
        MemoryColumn, // live memory used / limit (likewise)
        ColumnCount
    };
    Q_ENUM(Column)

    enum class RowKind { Session, Role, Kernel };
    Q_ENUM(RowKind)

    enum Roles {
        KindRole = Qt::UserRole + 1, // RowKind as int
        IdRole,                      // session id, role name or kernel id
        SessionIdRole,               // the session every row belongs to
        KernelIdRole,                // kernel id (the primary's on a session row)
        SessionNameRole,
        TemplateRole,
        RoleNameRole,
        HostnameRole,    // kernel hostname (the primary's on a session row)
        HostnamesRole,   // QStringList of the hostnames below this row, in rank order
        HostRole,        // QStringList of registered hosts used by this row
        StatusRole,      // status as text ("RUNNING")
        ContainerIdRole, // full container id
        PortsRole,       // QVariantList of QVariantMap {name, protocol, url, address, port}
        PortUrlsRole,    // QStringList of the ports' URLs
        CreatedAtRole,   // QDateTime
        SortRole,        // what the proxy sorts by in the current column
        LastErrorRole,   // session lastError / kernel's last status reason
        KernelCountRole, // kernels below this row
        LocalRankRole,
        UsageRole,         // Docker::ResourceUsage of the row (sums on role and session rows)
        CpuHistoryRole,    // QList<double>: the kernel's CPU % over the last 60 samples
        MemoryHistoryRole, // QList<double>: the kernel's memory used (bytes), likewise
        // Typed, for code that decides by status (StatusRole is the text shown and filtered):
        SessionStatusRole, // SessionStatus of a session row (derived from its kernels on a role
                           // row)
        KernelStatusRole,  // KernelStatus of a kernel row (the primary's on a session row)
    };

    explicit SessionTreeModel(QObject *parent = nullptr);
    ~SessionTreeModel() override;

    // Whole snapshot (a reset): used at start and after a reconnect.
    void setSessions(const QList<SessionRecord> &sessions,
                     const QHash<QString, QList<KernelRecord>> &kernelsBySession);
    // Adds or updates one session; with kernels given, its kernel set becomes exactly that.
    void upsertSession(const SessionRecord &session);
    void upsertSession(const SessionRecord &session, const QList<KernelRecord> &kernels);
    void removeSession(const QString &sessionId);
    // Adds or updates one kernel of a known session (ignored for an unknown session).
    void updateKernel(const KernelRecord &kernel);
    void removeKernel(const QString &sessionId, const QString &kernelId);
    void clear();

    // Live usage of a kernel (one sample a second from StatsMonitor): updates the kernel's CPU
    // and memory cells and the sums on its role and session rows.
    void setUsage(const QString &kernelId, const Docker::ResourceUsage &usage);
    void clearUsage(const QString &kernelId);
    void clearAllUsage();
    static constexpr int kUsageHistory = 60;
    // Announces pending usage changes now (they go out by themselves within 100 ms).
    void flushUsageNow() { flushUsage(); }

    // Registered host → public address, so tcp ports without a URL can name an address.
    void setHostAddresses(const QHash<QString, QString> &addresses);
    // Fixed "now" for the Age column (tests); invalid means the wall clock.
    void setReferenceTime(const QDateTime &now);

    bool hasSession(const QString &sessionId) const;
    bool hasKernel(const QString &kernelId) const;
    int sessionCount() const;
    int kernelCount() const;
    QModelIndex sessionIndex(const QString &sessionId, int column = 0) const;
    QModelIndex kernelIndex(const QString &kernelId, int column = 0) const;
    std::optional<SessionRecord> sessionRecord(const QString &sessionId) const;
    std::optional<KernelRecord> kernelRecord(const QString &kernelId) const;
    // Every kernel whose record says RUNNING (the ones worth a stats stream).
    QList<KernelRecord> runningKernels() const;
    // The status shown for a session (the record's if final, else derived from its kernels).
    SessionStatus displayedStatus(const QString &sessionId) const;

    static QString statusText(SessionStatus status);
    static QString statusText(KernelStatus status);
    static QString formatAge(qint64 seconds);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QHash<int, QByteArray> roleNames() const override;

private:
    struct Node;
    struct SessionInfo;

    Node *nodeFor(const QModelIndex &index) const;
    QModelIndex indexFor(const Node *node, int column = 0) const;
    Node *sessionNodeOf(const Node *node) const;
    Node *buildSessionNode(const SessionRecord &session, QList<KernelRecord> kernels);
    void indexSessionNode(Node *sessionNode);
    void unindexSessionNode(Node *sessionNode);
    void syncKernels(Node *sessionNode, const QList<KernelRecord> &kernels);
    Node *insertKernel(Node *sessionNode, const KernelRecord &kernel);
    void takeKernel(Node *kernelNode);
    void refreshSession(Node *sessionNode, bool notify);
    void refreshRole(Node *roleNode);
    void emitRowChanged(const Node *node);
    QVariant portsValue(const KernelRecord &kernel) const;
    QString portsText(const KernelRecord &kernel) const;
    QString portAddress(const KernelRecord &kernel, const PortBinding &port) const;
    qint64 ageSeconds(const QDateTime &created) const;
    QVariant sessionData(const Node *node, int column, int role) const;
    QVariant roleData(const Node *node, int column, int role) const;
    QVariant kernelData(const Node *node, int column, int role) const;
    QVariant usageData(const Node *node, int column, int role) const;
    void emitUsageCells(const Node *node, const QList<int> &roles);
    void emitUsageChanged(const Node *node);

    std::unique_ptr<Node> m_root;
    QHash<QString, Node *> m_sessions; // session id → session node
    QHash<QString, Node *> m_kernels;  // kernel id → kernel node
    QHash<QString, QString> m_hostAddresses;
    QDateTime m_referenceTime;
    UsageAggregator m_usage;
    struct History
    {
        QList<double> cpu;
        QList<double> memory;
    };
    QHash<QString, History> m_history; // kernel id → last kUsageHistory samples
    // Usage changes are announced together, a moment after the first (100 kernels a second
    // would otherwise be 300 dataChanged a second through the proxy).
    QSet<QString> m_usageDirty; // kernel ids
    QTimer *m_usageFlush = nullptr;
    void flushUsage();
};

} // namespace ClusterDeck::Ui
