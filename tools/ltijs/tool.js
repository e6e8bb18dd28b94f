// A second, independent LTI 1.3 tool for examtui's tests: ltijs (IMS-certified) with its
// Sequelize plugin on the tests' own PostgreSQL, registered with the stand-in platform
// (cmd/examtui/internal/lti/ltitest). A launch it accepts submits a score through AGS, so the
// stand-in's login, launch, token and score endpoints are checked by a reading of LTI that is
// not examtui's. Configured by the environment; prints "ready" once it listens.
const lti = require('ltijs').Provider
const Database = require('ltijs-sequelize')

const env = process.env
const db = new Database(env.PGDATABASE, env.PGUSER, env.PGPASSWORD, {
  host: env.PGHOST, port: Number(env.PGPORT), dialect: 'postgres', logging: false
})

lti.setup(env.LTIJS_KEY, { plugin: db }, {
  appRoute: '/', loginRoute: '/login', keysetRoute: '/keys',
  cookies: { secure: false, sameSite: 'Lax' }, devMode: false, tokenMaxAge: 60
})

lti.onConnect(async (token, req, res) => {
  try {
    const lineItem = token.platformContext.endpoint.lineitem
    await lti.Grade.submitScore(token, lineItem, {
      userId: token.user, scoreGiven: Number(env.SCORE), scoreMaximum: Number(env.SCORE_MAX),
      activityProgress: 'Completed', gradingProgress: 'FullyGraded', timestamp: new Date().toISOString()
    })
    res.send('ltijs launched ' + token.user + ' and posted a score')
  } catch (err) {
    res.status(500).send('ltijs: ' + err.message)
  }
})

async function main () {
  await lti.deploy({ port: Number(env.PORT), silent: true })
  await lti.registerPlatform({
    url: env.PLATFORM, name: 'examtui stand-in', clientId: env.CLIENT_ID,
    authenticationEndpoint: env.PLATFORM + '/auth', accesstokenEndpoint: env.PLATFORM + '/token',
    authConfig: { method: 'JWK_SET', key: env.PLATFORM + '/jwks' }
  })
  console.log('ready')
}

main().catch((err) => { console.error(err); process.exit(1) })
