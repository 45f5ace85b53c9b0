#include "exportdialog.h"

#include "export/composeexporter.h"
#include "export/exportmodel.h"
#include "export/jobsetexporter.h"
#include "template/templatewriter.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace ClusterDeck::Ui {

ExportDialog::ExportDialog(const ClusterTemplate &clusterTemplate, QWidget *parent)
    : QDialog(parent)
    , m_template(clusterTemplate)
{
    setWindowTitle(tr("Export %1").arg(m_template.name));
    setObjectName(QStringLiteral("exportDialog"));

    m_format = new QComboBox;
    m_format->setObjectName(QStringLiteral("exportFormat"));
    m_format->addItem(tr("Kubernetes JobSet (jobset.x-k8s.io/v1alpha2)"), int(Format::JobSet));
    m_format->addItem(tr("Docker Compose file (one host)"), int(Format::Compose));
    auto *top = new QFormLayout;
    auto *formatLabel = new QLabel(tr("&Format:"));
    formatLabel->setBuddy(m_format);
    top->addRow(formatLabel, m_format);

    // One spin box per role, within its min..max: an export of counts a launch would refuse
    // cannot be asked for.
    auto *counts = new QGroupBox(tr("Kernels per role"));
    auto *countsLayout = new QFormLayout(counts);
    for (const RoleTemplate &r : std::as_const(m_template.roles)) {
        auto *spin = new QSpinBox;
        spin->setObjectName(QStringLiteral("count-") + r.name);
        spin->setRange(r.min, r.max);
        spin->setValue(r.count);
        spin->setAccessibleName(tr("Kernels of role %1").arg(r.name));
        spin->setToolTip(tr("%1 to %2").arg(r.min).arg(r.max));
        spin->setEnabled(r.min != r.max); // a fixed count is shown, not offered
        auto *label = new QLabel(r.name + u':');
        label->setBuddy(spin);
        countsLayout->addRow(label, spin);
        m_counts.insert(r.name, spin);
        connect(spin, &QSpinBox::valueChanged, this, &ExportDialog::rebuild);
    }

    m_messagesLabel = new QLabel;
    m_messagesLabel->setObjectName(QStringLiteral("exportMessages"));
    m_messagesLabel->setWordWrap(true);
    m_messagesLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_preview = new QPlainTextEdit;
    m_preview->setObjectName(QStringLiteral("exportPreview"));
    m_preview->setAccessibleName(tr("Exported YAML"));
    m_preview->setReadOnly(true);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_save = buttons->addButton(tr("&Save As…"), QDialogButtonBox::ActionRole);
    m_save->setObjectName(QStringLiteral("exportSave"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_save, &QPushButton::clicked, this, &ExportDialog::saveAs);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(counts);
    layout->addWidget(m_messagesLabel);
    layout->addWidget(m_preview, 1);
    layout->addWidget(buttons);
    resize(760, 640);

    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::rebuild);
    rebuild();
}

void ExportDialog::setFormat(Format format)
{
    m_format->setCurrentIndex(m_format->findData(int(format)));
}

ExportDialog::Format ExportDialog::format() const
{
    return Format(m_format->currentData().toInt());
}

bool ExportDialog::setCount(const QString &role, int count)
{
    QSpinBox *spin = m_counts.value(role);
    if (!spin)
        return false;
    spin->setValue(count);
    return true;
}

QString ExportDialog::suggestedFileName() const
{
    return QStringLiteral("%1-%2.yaml")
        .arg(m_template.name,
             format() == Format::JobSet ? QStringLiteral("jobset") : QStringLiteral("compose"));
}

void ExportDialog::rebuild()
{
    QMap<QString, int> counts;
    for (auto it = m_counts.cbegin(); it != m_counts.cend(); ++it)
        counts.insert(it.key(), it.value()->value());
    m_yaml.clear();
    m_messages.clear();
    m_failed = false;
    const auto model = ExportModel::build(m_template, counts);
    const auto exported = !model                       ? Result<ExportOutput>(fail(model.error()))
                          : format() == Format::JobSet ? JobSetExporter::exportModel(*model)
                                                       : ComposeExporter::exportModel(*model);
    if (exported) {
        m_yaml = exported->yaml;
        m_messages = exported->warnings;
    } else {
        m_failed = true;
        m_messages = {exported.error().toString()};
    }
    m_preview->setPlainText(m_yaml);
    QStringList lines;
    for (const QString &m : std::as_const(m_messages))
        lines.append((m_failed ? tr("Error: ") : tr("Warning: ")) + m.toHtmlEscaped());
    m_messagesLabel->setText(lines.join(QStringLiteral("<br>")));
    m_messagesLabel->setVisible(!lines.isEmpty());
    m_save->setEnabled(!m_failed);
}

Result<void> ExportDialog::saveTo(const QString &path) const
{
    if (m_failed)
        return fail(Error::Kind::Invalid, path,
                    QStringLiteral("nothing to save: %1").arg(m_messages.value(0)));
    return TemplateWriter::saveYaml(m_yaml.toUtf8(), path);
}

void ExportDialog::saveAs()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Export"), QDir::home().filePath(suggestedFileName()),
        tr("YAML files (*.yaml *.yml);;All files (*)"));
    if (path.isEmpty())
        return;
    if (auto saved = saveTo(path); !saved)
        QMessageBox::warning(this, tr("Export not saved"), saved.error().toString());
}

} // namespace ClusterDeck::Ui
