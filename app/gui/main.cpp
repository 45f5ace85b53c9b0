#include "common/version.h"
#include "mainwindow/mainwindow.h"

#include <QApplication>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("clusterdeck"));
    QApplication::setApplicationDisplayName(QStringLiteral("ClusterDeck"));
    QApplication::setApplicationVersion(ClusterDeck::versionString());
    QApplication::setOrganizationDomain(QStringLiteral("clusterdeck.io"));

    ClusterDeck::Ui::MainWindow window;
    window.show();
    return QApplication::exec();
}
