// Package browsertest holds the report's tests in headless Chromium
// (chromedp). They are a package of their own, with no code but this
// comment, so that chromedp and its protocol packages are not in the
// module graph of a program that imports the report package: go mod tidy
// of a user's module loads the tests of the packages it imports.
package browsertest
