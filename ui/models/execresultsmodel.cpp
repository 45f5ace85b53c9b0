#include "execresultsmodel.h"

#include <QBrush>
#include <QColor>

namespace ClusterDeck::Ui {

ExecResultsModel::ExecResultsModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void ExecResultsModel::start(const QList<KernelRecord> &kernels)
{
    beginResetModel(); // a new run replaces the table
    m_rows.clear();
    m_byHostname.clear();
    for (const KernelRecord &k : kernels) {
        m_byHostname.insert(k.hostname, int(m_rows.size()));
        m_rows.append(Row{k.hostname, k.host, std::nullopt, QString(), -1, {}});
    }
    m_worst = 0;
    m_running = true;
    endResetModel();
}

void ExecResultsModel::appendLine(const QString &hostname, const QByteArray &line, bool err)
{
    const int row = m_byHostname.value(hostname, -1);
    if (row < 0)
        return;
    m_rows[row].lines.append((err ? QStringLiteral("! ") : QString()) + QString::fromUtf8(line));
    const QModelIndex i = index(row, OutputColumn);
    Q_EMIT dataChanged(i, i);
}

void ExecResultsModel::finish(const QList<KernelExecResult> &results)
{
    for (const KernelExecResult &r : results) {
        const int row = m_byHostname.value(r.kernel.hostname, -1);
        if (row < 0)
            continue;
        Row &x = m_rows[row];
        x.exitCode = r.error ? SessionExec::kUnreachableExitCode : r.exitCode;
        x.error = r.error ? r.error->toString() : QString();
        x.elapsedMs = r.elapsedMs;
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
    m_worst = SessionExec::worstExitCode(results);
    m_running = false;
}

int ExecResultsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ExecResultsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ExecResultsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows.at(index.row());
    if (role == ExitCodeRole)
        return r.exitCode ? QVariant(*r.exitCode) : QVariant();
    if (role == FullOutputRole)
        return r.lines.join(u'\n');
    if (role == Qt::ForegroundRole && index.column() == ExitColumn && r.exitCode)
        return QBrush(*r.exitCode == 0 ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28));
    if (role == Qt::ToolTipRole && index.column() == OutputColumn)
        return r.error.isEmpty() ? r.lines.join(u'\n') : r.error;
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case KernelColumn:
        return r.hostname;
    case HostColumn:
        return r.host;
    case ExitColumn:
        return r.exitCode ? QString::number(*r.exitCode) : tr("running…");
    case DurationColumn:
        return r.elapsedMs < 0 ? QString() : tr("%1 ms").arg(r.elapsedMs);
    case OutputColumn:
        if (!r.error.isEmpty())
            return r.error;
        return r.lines.isEmpty() ? QString() : r.lines.last();
    default:
        return {};
    }
}

QVariant ExecResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KernelColumn:
        return tr("Kernel");
    case HostColumn:
        return tr("Host");
    case ExitColumn:
        return tr("Exit");
    case DurationColumn:
        return tr("Time");
    case OutputColumn:
        return tr("Output (last line)");
    default:
        return {};
    }
}

} // namespace ClusterDeck::Ui
