#include "scaleroledialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

namespace ClusterDeck::Ui {

ScaleRoleDialog::ScaleRoleDialog(const QString &sessionName, const QString &role, int current,
                                 int min, int max, Preview preview, QWidget *parent)
    : QDialog(parent)
    , m_count(new QSpinBox)
    , m_preview(new QLabel)
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel))
    , m_debounce(new QTimer(this))
    , m_previewFn(std::move(preview))
    , m_current(current)
{
    setObjectName(QStringLiteral("scaleRoleDialog"));
    setWindowTitle(tr("Scale %1 of %2").arg(role, sessionName));
    m_count->setObjectName(QStringLiteral("scaleCount"));
    m_count->setRange(min, max);
    m_count->setValue(current);
    m_count->setToolTip(tr("Between the template's min (%1) and max (%2)").arg(min).arg(max));
    m_preview->setObjectName(QStringLiteral("scalePreview"));
    m_preview->setWordWrap(true);
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_preview->setText(tr("Now %1 kernel(s).").arg(current));
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Scale"));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);

    auto *form = new QFormLayout;
    form->addRow(tr("%1 kernels (%2–%3):").arg(role).arg(min).arg(max), m_count);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview);
    layout->addWidget(m_buttons);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(250);
    connect(m_debounce, &QTimer::timeout, this, &ScaleRoleDialog::requestPreview);
    connect(m_count, &QSpinBox::valueChanged, this, [this] {
        m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
        m_preview->setText(tr("Checking…"));
        m_debounce->start();
    });
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

int ScaleRoleDialog::count() const
{
    return m_count->value();
}

void ScaleRoleDialog::requestPreview()
{
    const int count = m_count->value();
    const int asked = ++m_asked;
    if (count == m_current) {
        m_preview->setText(tr("Now %1 kernel(s): no change.").arg(count));
        return;
    }
    if (!m_previewFn)
        return;
    QPointer<ScaleRoleDialog> self(this);
    m_previewFn(count, [self, asked](bool ok, const QString &text) {
        if (!self || asked != self->m_asked)
            return;
        self->m_preview->setText(ok ? text : tr("Not possible: %1").arg(text));
        self->m_buttons->button(QDialogButtonBox::Ok)->setEnabled(ok);
    });
}

} // namespace ClusterDeck::Ui
