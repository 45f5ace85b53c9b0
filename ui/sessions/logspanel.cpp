#include "logspanel.h"

#include "logfollower.h"
#include "widgets/detachedwindow.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace ClusterDeck::Ui {

LogsPanel::LogsPanel(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(tr("Logs: select a kernel or a session and choose Show Logs")))
    , m_follow(new QCheckBox(tr("Follow")))
    , m_stop(new QToolButton)
    , m_clear(new QToolButton)
    , m_detach(new QToolButton)
    , m_text(new QPlainTextEdit)
{
    setObjectName(QStringLiteral("logsPanel"));
    m_follow->setChecked(true);
    m_stop->setText(tr("Stop"));
    m_stop->setEnabled(false);
    m_clear->setText(tr("Clear"));
    m_detach->setObjectName(QStringLiteral("detachLogs"));
    m_detach->setText(tr("Own Window"));
    m_detach->setToolTip(tr("Show the logs in a window of their own, beside the others"));
    m_detach->setAccessibleName(tr("Logs in their own window"));
    m_text->setReadOnly(true);
    m_text->setObjectName(QStringLiteral("logsText"));
    m_text->setAccessibleName(tr("Logs"));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setMaximumBlockCount(20000);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_title, 1);
    bar->addWidget(m_follow);
    bar->addWidget(m_stop);
    bar->addWidget(m_clear);
    bar->addWidget(m_detach);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_text);

    connect(m_stop, &QToolButton::clicked, this, &LogsPanel::stop);
    connect(m_clear, &QToolButton::clicked, m_text, &QPlainTextEdit::clear);
    connect(m_detach, &QToolButton::clicked, this, &LogsPanel::detachRequested);
    connect(m_follow, &QCheckBox::toggled, this, [this] {
        if (!m_sessionId.isEmpty())
            restart();
    });
}

LogsPanel::~LogsPanel() = default;

void LogsPanel::showLogs(const QString &sessionId, const QString &hostname, const QString &title)
{
    // In a window of its own, the panel comes to the front when asked for other logs.
    if (DetachedWindow *away = DetachedWindow::of(this)) {
        away->raise();
        away->activateWindow();
    }
    m_sessionId = sessionId;
    m_hostname = hostname;
    m_title->setText(title);
    restart();
}

void LogsPanel::restart()
{
    stop();
    m_text->clear();
    if (!m_controller) {
        m_text->appendPlainText(tr("(no store: logs are not available)"));
        return;
    }
    auto *follower =
        new LogFollower(m_controller, m_sessionId, m_hostname, m_follow->isChecked(), this);
    m_follower = follower;
    connect(follower, &LogFollower::lines, this, &LogsPanel::appendLines);
    connect(follower, &LogFollower::finished, this, [this, follower](const QString &error) {
        if (!error.isEmpty())
            m_text->appendPlainText(tr("error: %1").arg(error));
        if (m_follower == follower)
            m_stop->setEnabled(false);
        follower->deleteLater();
    });
    m_stop->setEnabled(true);
    follower->start();
}

void LogsPanel::stop()
{
    if (m_follower) {
        m_follower->stop();
        m_follower = nullptr; // it deletes itself once its stream has ended
    }
    m_stop->setEnabled(false);
}

QString LogsPanel::text() const
{
    return m_text->toPlainText();
}

bool LogsPanel::isFollowing() const
{
    return m_follower && m_follower->isRunning();
}

void LogsPanel::appendLines(const QStringList &lines)
{
    QScrollBar *bar = m_text->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    for (const QString &line : lines)
        m_text->appendPlainText(line);
    if (atEnd)
        bar->setValue(bar->maximum());
}

} // namespace ClusterDeck::Ui
