#pragma once

#include "store/records.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace ClusterDeck::Ui {

class ConsoleController;

// Registers a Docker host: endpoint, TLS files (with file pickers), public address, labels; or
// fills endpoint and TLS files from one of the docker CLI's contexts ($DOCKER_CONFIG, only read).
// Test Connection asks the daemon in the background; OK registers through the HostRegistry
// (which tests the connection again) and shows the error in full when it fails. An ssh://
// host whose key is not known yet offers Trust Host Key…: the key's fingerprint, and on the
// admin's yes, the key added to the known_hosts file their ssh uses (never a changed key).
class AddHostDialog : public QDialog
{
    Q_OBJECT

public:
    explicit AddHostDialog(ConsoleController *controller, QWidget *parent = nullptr);

    HostRecord host() const;
    // "Problems: …" or empty: what the registry's pure checks say about the form.
    QString validationError() const;
    QLabel *resultLabel() const { return m_result; }
    QComboBox *contextBox() const { return m_context; }
    QPushButton *trustButton() const { return m_trust; }
    // Reads the docker CLI's contexts from `configDir` again (tests point it at their own).
    void loadContexts(const QString &configDir);

public Q_SLOTS:
    void testConnection();
    void accept() override;
    // Reads the host's key in the background, asks the admin, adds it and tests again.
    void trustHostKey();

private:
    QLineEdit *fileField(const QString &name);
    void setBusy(bool busy, const QString &message);
    void useContext(int index);
    // Shows `error` in red; an unknown SSH host key also shows Trust Host Key….
    void showError(const QString &error);

    ConsoleController *m_controller;
    QComboBox *m_context;
    QString m_contextsDir;
    QLineEdit *m_name;
    QLineEdit *m_endpoint;
    QLineEdit *m_ca;
    QLineEdit *m_cert;
    QLineEdit *m_key;
    QLineEdit *m_address;
    QLineEdit *m_labels;
    QLabel *m_result;
    QPushButton *m_test;
    QPushButton *m_trust;
    QDialogButtonBox *m_buttons;
};

} // namespace ClusterDeck::Ui
