#include "runcommanddialog.h"

#include "models/execresultsmodel.h"

#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

#include <memory>

namespace ClusterDeck::Ui {

RunCommandDialog::RunCommandDialog(HostRegistry *registry, const QString &title,
                                   const QList<KernelRecord> &kernels, QWidget *parent)
    : QDialog(parent)
    , m_registry(registry)
    , m_kernels(kernels)
    , m_command(new QLineEdit)
    , m_parallel(new QSpinBox)
    , m_run(new QPushButton(tr("&Run")))
    , m_summary(new QLabel)
    , m_table(new QTableView)
    , m_output(new QPlainTextEdit)
    , m_results(new ExecResultsModel(this))
{
    setObjectName(QStringLiteral("runCommandDialog"));
    setWindowTitle(tr("Run Command in %1").arg(title));
    resize(820, 520);
    m_command->setObjectName(QStringLiteral("command"));
    m_command->setPlaceholderText(tr("a shell command, e.g. nvidia-smi -L; df -h /"));
    m_parallel->setRange(0, 256);
    m_parallel->setSpecialValueText(tr("all at once"));
    m_run->setDefault(true);
    auto *form = new QFormLayout;
    QStringList names;
    for (const KernelRecord &k : kernels)
        names.append(k.hostname);
    form->addRow(tr("Kernels:"), new QLabel(names.join(QStringLiteral(", "))));
    auto *line = new QHBoxLayout;
    line->addWidget(m_command, 1);
    line->addWidget(m_run);
    // A row whose field is a layout gets no buddy from QFormLayout.
    auto *commandLabel = new QLabel(tr("C&ommand:"));
    commandLabel->setBuddy(m_command);
    form->addRow(commandLabel, line);
    form->addRow(tr("At most at once:"), m_parallel);

    m_table->setObjectName(QStringLiteral("results"));
    m_table->setAccessibleName(tr("Results per kernel"));
    m_table->setModel(m_results);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_output->setReadOnly(true);
    m_output->setAccessibleName(tr("Output of the selected kernel"));
    m_output->setFont(QFont(QStringLiteral("monospace")));
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(m_table);
    split->addWidget(m_output);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(split, 1);
    layout->addWidget(m_summary);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_run, &QPushButton::clicked, this, [this] { run(m_command->text()); });
    connect(m_command, &QLineEdit::returnPressed, this, [this] { run(m_command->text()); });
    auto showOutput = [this] {
        const QModelIndex i = m_table->currentIndex();
        m_output->setPlainText(
            i.isValid() ? i.siblingAtColumn(0).data(ExecResultsModel::FullOutputRole).toString()
                        : QString());
    };
    connect(m_table->selectionModel(), &QItemSelectionModel::currentChanged, this, showOutput);
    connect(m_results, &QAbstractItemModel::dataChanged, this, showOutput);
}

RunCommandDialog::~RunCommandDialog()
{
    // The worker holds no pointer to the dialog's members past `finished`: wait for it.
    QThreadPool::globalInstance()->waitForDone();
}

void RunCommandDialog::run(const QString &command)
{
    if (m_running || command.trimmed().isEmpty())
        return;
    m_running = true;
    m_run->setEnabled(false);
    m_results->start(m_kernels);
    m_summary->setText(tr("Running in %n kernel(s)…", nullptr, int(m_kernels.size())));
    QPointer<RunCommandDialog> self(this);
    const QList<KernelRecord> kernels = m_kernels;
    HostRegistry *registry = m_registry;
    const int parallel = m_parallel->value();
    QThreadPool::globalInstance()->start([self, kernels, registry, parallel, command] {
        QElapsedTimer timer;
        timer.start();
        SessionExec exec(registry);
        const QList<KernelExecResult> results =
            exec.run(kernels, {QStringLiteral("sh"), QStringLiteral("-c"), command}, parallel,
                     [self](const QString &hostname, const QByteArray &line, bool err) {
                         QMetaObject::invokeMethod(
                             self.data(),
                             [self, hostname, line, err] {
                                 if (self)
                                     self->m_results->appendLine(hostname, line, err);
                             },
                             Qt::QueuedConnection);
                     });
        const qint64 elapsed = timer.elapsed();
        QMetaObject::invokeMethod(
            self.data(),
            [self, results, elapsed] {
                if (!self)
                    return;
                self->m_results->finish(results);
                self->m_running = false;
                self->m_run->setEnabled(true);
                const int worst = self->m_results->worstExitCode();
                self->m_summary->setText(
                    tr("Done in %1 ms — worst exit code %2").arg(elapsed).arg(worst));
                Q_EMIT self->finished(worst);
            },
            Qt::QueuedConnection);
    });
}

} // namespace ClusterDeck::Ui
