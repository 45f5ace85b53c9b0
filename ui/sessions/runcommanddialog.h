#pragma once

#include "store/records.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace ClusterDeck {
class HostRegistry;
}

namespace ClusterDeck::Ui {

class ExecResultsModel;

// "Run Command…" on a session or a role: the command runs in every selected kernel at once
// (SessionExec on a worker thread); the table fills in per kernel, the selected row's whole
// output shows below.
class RunCommandDialog : public QDialog
{
    Q_OBJECT

public:
    RunCommandDialog(HostRegistry *registry, const QString &title,
                     const QList<KernelRecord> &kernels, QWidget *parent = nullptr);
    ~RunCommandDialog() override;

    QLineEdit *commandEdit() const { return m_command; }
    QPushButton *runButton() const { return m_run; }
    ExecResultsModel *results() const { return m_results; }
    QTableView *table() const { return m_table; }

    // Runs `command` through `sh -c` in every kernel.
    void run(const QString &command);

Q_SIGNALS:
    void finished(int worstExitCode);

private:
    HostRegistry *m_registry;
    QList<KernelRecord> m_kernels;
    QLineEdit *m_command;
    QSpinBox *m_parallel;
    QPushButton *m_run;
    QLabel *m_summary;
    QTableView *m_table;
    QPlainTextEdit *m_output;
    ExecResultsModel *m_results;
    bool m_running = false;
};

} // namespace ClusterDeck::Ui
