#include "mainwindow.h"

#include "common/version.h"

#include <QApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

namespace ClusterDeck::Ui {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_tabs(new QTabWidget(this))
{
    setWindowTitle(QStringLiteral("ClusterDeck"));
    setObjectName(QStringLiteral("ClusterDeckMainWindow"));
    resize(1100, 700);

    auto placeholder = [](const QString &text) {
        auto *label = new QLabel(text);
        label->setAlignment(Qt::AlignCenter);
        return label;
    };
    m_tabs->addTab(placeholder(tr("No sessions yet.")), tr("Sessions"));
    m_tabs->addTab(placeholder(tr("No hosts registered.")), tr("Hosts"));
    m_tabs->addTab(placeholder(tr("No templates loaded.")), tr("Templates"));
    setCentralWidget(m_tabs);

    setupMenus();
    statusBar()->showMessage(tr("Ready"));
}

void MainWindow::setupMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About ClusterDeck"), this, [this] {
        QMessageBox::about(this, tr("About ClusterDeck"),
                           tr("ClusterDeck %1\nLaunch, watch and tear down cluster sessions "
                              "across Docker hosts.")
                               .arg(versionString()));
    });
}

} // namespace ClusterDeck::Ui
