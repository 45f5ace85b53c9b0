#pragma once

#include "store/status.h"

#include <QSortFilterProxyModel>
#include <QStringList>

namespace ClusterDeck::Ui {

// Filters the session tree by free text or `field:value` terms (name:, template:, host:, status:,
// role:), all of which must match. A matching kernel keeps its role and session rows visible;
// a matching session shows all its kernels. Kernels keep their template order under any sort.
class SessionFilterProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit SessionFilterProxyModel(QObject *parent = nullptr);

    // "web host:h2 status:running" — terms are case-insensitive substrings.
    void setFilterText(const QString &text);
    QString filterText() const { return m_text; }

    // Only sessions (and their kernels) in one of these statuses; empty = all.
    void setStatusFilter(const QList<SessionStatus> &statuses);
    QList<SessionStatus> statusFilter() const { return m_statuses; }

    // Sessions that ended (TERMINATED, CANCELLED) are shown only when asked for.
    void setShowFinished(bool show);
    bool showFinished() const { return m_showFinished; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    struct Term
    {
        QString field; // empty = any field
        QString value;
    };

    bool termMatches(const Term &term, const QModelIndex &index) const;

    QString m_text;
    QList<Term> m_terms;
    QList<SessionStatus> m_statuses;
    bool m_showFinished = true;
};

} // namespace ClusterDeck::Ui
