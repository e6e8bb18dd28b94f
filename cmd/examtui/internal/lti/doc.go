// Package lti makes examtui an LTI 1.3 Advantage tool (docs/lms.md): the OIDC third-party
// login a platform (Moodle, Canvas, …) starts, the launch whose id_token it verifies against the
// platform's keys, the tool's own keys (JWKS), the Deep Linking response that places an exam
// in a course, and the two services the tool calls back: Names and Role Provisioning (the
// course roster) and Assignment and Grade Services (scores), with client-credentials tokens
// signed by the tool's key.
//
// The package knows the protocol only. What a verified launch does — a learner's join, an
// instructor's page, the exam picker — is the Launcher the wiring gives it, so the package
// stays free of rooms and stores.
package lti
